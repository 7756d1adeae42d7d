//! Freshness, the one way every cache under `.git/ucg/` (and the lesson query index) tells that a
//! file is unchanged, and stamps of many files that mostly share a directory, as a cache's check
//! takes them: each directory is opened once and its files are looked up relative to it
//! (`fstatat`), instead of walking the whole path for each. A path is followed as
//! `std::fs::metadata` follows it (symbolic links resolved).

use std::ffi::{CStr, CString};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What every cache compares to tell that a file is unchanged: its device and inode, size, and
/// modification and change times to the nanosecond. A write changes the size or the times; the
/// change time also moves when the mode or owner does (a registry made unreadable must not look
/// the same), and it is the kernel's own (no program sets it back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Freshness {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: i64,
    pub mtime_nsec: i64,
    pub ctime: i64,
    pub ctime_nsec: i64,
}

impl Freshness {
    pub fn of(metadata: &std::fs::Metadata) -> Freshness {
        use std::os::unix::fs::MetadataExt;
        Freshness {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.size(),
            mtime: metadata.mtime(),
            mtime_nsec: metadata.mtime_nsec(),
            ctime: metadata.ctime(),
            ctime_nsec: metadata.ctime_nsec(),
        }
    }

    fn of_stat(stat: &libc::stat) -> Freshness {
        Freshness {
            dev: stat.st_dev,
            ino: stat.st_ino,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            mtime: stat.st_mtime,
            mtime_nsec: stat.st_mtime_nsec,
            ctime: stat.st_ctime,
            ctime_nsec: stat.st_ctime_nsec,
        }
    }
}

/// A file's or directory's stamp: `None` when it cannot be looked up (absent, mostly).
pub type Stamp = Option<Freshness>;

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
    pub(crate) fn stamp_bytes(&mut self, path: &[u8]) -> Stamp {
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
        found.then(|| Freshness::of_stat(&stat))
    }
}

/// The stamp through `std::fs::metadata` (a path without a parent, or whose parent cannot be
/// opened as a directory: the lookup then fails the same way).
fn whole_path(path: &Path) -> Stamp {
    std::fs::metadata(path).ok().map(|m| Freshness::of(&m))
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

/// One stamp as a cache line: `<dev> <inode> <size> <mtime> <ns> <ctime> <ns> <path>`, or
/// `- <path>` for a path that cannot be looked up. The path's bytes end the line (a path holding a
/// newline cannot be written: the caller checks).
pub fn stamp_line(path: &[u8], stamp: Stamp) -> Vec<u8> {
    let mut text = match stamp {
        Some(f) => format!(
            "{} {} {} {} {} {} {} ",
            f.dev, f.ino, f.size, f.mtime, f.mtime_nsec, f.ctime, f.ctime_nsec
        )
        .into_bytes(),
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
    let mut fields = line.splitn(8, |b| *b == b' ');
    let freshness = Freshness {
        dev: unsigned(fields.next()?)?,
        ino: unsigned(fields.next()?)?,
        size: unsigned(fields.next()?)?,
        mtime: signed(fields.next()?)?,
        mtime_nsec: signed(fields.next()?)?,
        ctime: signed(fields.next()?)?,
        ctime_nsec: signed(fields.next()?)?,
    };
    Some((Some(freshness), fields.next()?))
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

/// The one layout of the caches under `.git/ucg/` that stamps keep fresh (the prompt's segment,
/// the hooks' remembered pass): a header line naming the cache and its version; the fields the
/// cache is about, one line each and as many as the cache has; one [`stamp_line`] per file; and
/// an end line counting both (`end <fields> <stamps>`), so a file cut short or grown reads as no
/// cache at all. Every value is one line: `None` when one holds a newline (nothing is cached).
pub fn encode_line_cache(
    header: &str,
    fields: &[&[u8]],
    stamps: &[(std::path::PathBuf, Stamp)],
) -> Option<Vec<u8>> {
    let mut out = header.as_bytes().to_vec();
    out.push(b'\n');
    let line = |out: &mut Vec<u8>, bytes: &[u8]| {
        out.extend_from_slice(bytes);
        out.push(b'\n');
        !bytes.contains(&b'\n')
    };
    let mut clean = fields.iter().all(|field| line(&mut out, field));
    for (path, stamp) in stamps {
        clean &= line(&mut out, &stamp_line(path.as_os_str().as_bytes(), *stamp));
    }
    let end = format!("end {} {} {}", fields.len(), stamps.len(), checksum(&out));
    clean &= line(&mut out, end.as_bytes());
    clean.then_some(out)
}

/// The end line's checksum over every byte before it (SHA-256, its first 16 bytes in hex): a
/// cache cut short, spliced or edited by hand is read as no cache.
fn checksum(bytes: &[u8]) -> String {
    use sha2::Digest;
    crate::hex(&sha2::Sha256::digest(bytes)[..16])
}

/// The lines of a cache file, split.
pub type Lines<'a> = Vec<&'a [u8]>;

/// A cache [`encode_line_cache`] wrote with `header` and `fields` fields: the fields and the
/// stamp lines (not yet checked against the files); `None` for anything else.
pub fn decode_line_cache<'a>(
    bytes: &'a [u8],
    header: &str,
    fields: usize,
) -> Option<(Lines<'a>, Lines<'a>)> {
    let body = bytes.strip_suffix(b"\n")?;
    let end_at = body.iter().rposition(|b| *b == b'\n')? + 1;
    let end = &body[end_at..];
    let mut lines: Vec<&[u8]> = body[..end_at - 1].split(|b| *b == b'\n').collect();
    if lines.first() != Some(&header.as_bytes()) || lines.len() < 1 + fields {
        return None;
    }
    let stamps = lines.split_off(1 + fields);
    let expected = format!(
        "end {fields} {} {}",
        stamps.len(),
        checksum(&bytes[..end_at])
    );
    (end == expected.as_bytes()).then(|| (lines.split_off(1), stamps))
}

/// [`decode_line_cache`] of a cache whose number of fields varies: its end line says how many.
pub fn decode_counted_line_cache<'a>(
    bytes: &'a [u8],
    header: &str,
) -> Option<(Lines<'a>, Lines<'a>)> {
    let end = bytes.strip_suffix(b"\n")?.rsplit(|b| *b == b'\n').next()?;
    let fields = end.strip_prefix(b"end ")?.split(|b| *b == b' ').next()?;
    decode_line_cache(bytes, header, usize::try_from(unsigned(fields)?).ok()?)
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
        // Down to `i64::MIN`, whose magnitude no `i64` holds.
        Some(digits) => 0i64.checked_sub_unsigned(unsigned(digits)?),
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
            assert_eq!(stamper.stamp(&path), whole_path(&path), "{path:?}");
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
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert_ne!(Stamper::default().stamp(&file), before);
    }

    #[test]
    fn a_line_cache_reads_back_and_nothing_else_does() {
        let sized = Freshness {
            size: 3,
            ..Default::default()
        };
        let stamps = vec![
            (PathBuf::from("a/file"), None),
            (PathBuf::from("b"), Some(sized)),
        ];
        let fields: [&[u8]; 2] = [b"/work", b"-"];
        let bytes = encode_line_cache("h 1", &fields, &stamps).unwrap_or_default();
        let (read_fields, read_stamps) =
            decode_line_cache(&bytes, "h 1", 2).unwrap_or_else(|| panic!("{bytes:?}"));
        assert_eq!(read_fields, fields);
        let parsed: Vec<_> = read_stamps
            .iter()
            .filter_map(|l| parse_stamp_line(l))
            .collect();
        assert_eq!(parsed, [(None, &b"a/file"[..]), (stamps[1].1, &b"b"[..])]);
        // Another header, another number of fields, any line cut off or added: no cache.
        assert_eq!(decode_line_cache(&bytes, "h 2", 2), None);
        assert_eq!(decode_line_cache(&bytes, "h 1", 1), None);
        let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
        for cut in 0..lines.len() {
            let shorter: Vec<u8> = lines[..cut].concat();
            assert_eq!(decode_line_cache(&shorter, "h 1", 2), None, "{cut}");
            let mut longer = lines[..cut].concat();
            longer.extend_from_slice(b"- extra\n");
            longer.extend(lines[cut..].concat());
            assert_eq!(decode_line_cache(&longer, "h 1", 2), None, "{cut}");
        }
        // A value holding a newline is not cached.
        assert_eq!(encode_line_cache("h 1", &[b"a\nb"], &[]), None);
    }
}
