//! Reading an artifact without trusting it: a FIFO, a device, a directory or a file larger than
//! the cap is refused at once instead of hanging the reader or filling its memory. The open never
//! blocks (`O_NONBLOCK`, which a regular file ignores), `fstat` then says what was opened, and the
//! read stops at the cap. Whoever gates treats a refusal as "unreadable" and fails closed; whoever
//! reports shows `n/a`.

use crate::stamp::Freshness;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The default cap on one artifact read: far above any real run's files (a registry of 250,000
/// REDs is 50 MB), far below what would exhaust the machine.
pub(crate) const DEFAULT_MAX_ARTIFACT_BYTES: u64 = 256 << 20;

static MAX_ARTIFACT_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_ARTIFACT_BYTES);

/// Sets the cap for this process (`ucg.maxArtifactBytes`).
pub fn set_max_artifact_bytes(bytes: u64) {
    MAX_ARTIFACT_BYTES.store(bytes, Ordering::Relaxed);
}

/// The cap in force.
pub fn max_artifact_bytes() -> u64 {
    MAX_ARTIFACT_BYTES.load(Ordering::Relaxed)
}

/// The first read covers a small file whole, in as few system calls as a small file allows:
/// artifacts are mostly small and many (a run of 1,000 stories has 2,000 markers).
const FIRST_READ: usize = 16 << 10;

/// A whole regular file, at most [`max_artifact_bytes`] long. Anything else — a FIFO, a socket, a
/// device, a directory, a larger file — is an error of kind `InvalidData` that says what it was;
/// an absent file is `NotFound`, as from `std::fs::read`.
pub fn read_file(path: impl AsRef<Path>) -> std::io::Result<Vec<u8>> {
    let file = open_nonblocking(path.as_ref())?;
    let metadata = file.metadata()?;
    read_open(file, &metadata)
}

/// [`read_file`], with the file's identity when nothing wrote it while it was read (the same
/// before and after, and as long as what was read); `None` when it changed meanwhile.
pub fn read_file_identified(
    path: impl AsRef<Path>,
) -> std::io::Result<(Vec<u8>, Option<Freshness>)> {
    let file = open_nonblocking(path.as_ref())?;
    let before = file.metadata()?;
    let bytes = read_open(&file, &before)?;
    let (before, after) = (Freshness::of(&before), Freshness::of(&file.metadata()?));
    let same = before == after && before.size == bytes.len() as u64;
    Ok((bytes, same.then_some(before)))
}

/// `len` bytes at `offset` of a file [`open_regular`] opened; fewer only at its end.
pub fn read_at(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let cap = max_artifact_bytes();
    if len > cap {
        return Err(too_large(cap));
    }
    let mut bytes = vec![0u8; usize::try_from(len).map_err(|_| too_large(cap))?];
    let mut filled = 0;
    while filled < bytes.len() {
        let at = offset
            .checked_add(filled as u64)
            .ok_or_else(|| refused("an offset past the largest file".into()))?;
        match file.read_at(&mut bytes[filled..], at) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok(bytes)
}

/// `path` opened for reading without blocking on what is not a regular file (a FIFO's writer).
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// What a file type is, in words ("a FIFO"); `None` for one without a name here (a symlink).
pub fn file_kind(kind: std::fs::FileType) -> Option<&'static str> {
    Some(if kind.is_file() {
        "a file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        return None;
    })
}

/// The read behind [`read_file`], on a file already opened and `fstat`ed.
fn read_open(file: impl Read, metadata: &std::fs::Metadata) -> std::io::Result<Vec<u8>> {
    let kind = metadata.file_type();
    if !kind.is_file() {
        let what = crate::file_kind(kind).unwrap_or("something else");
        return Err(refused(format!("{what}, not a regular file")));
    }
    let cap = max_artifact_bytes();
    if metadata.len() > cap {
        return Err(too_large(cap));
    }
    // The size seen by fstat can be wrong (a file still growing, /proc): the read itself stops
    // one byte past the cap.
    let mut limited = file.take(cap.saturating_add(1));
    let mut bytes = vec![0u8; FIRST_READ];
    let mut filled = 0;
    while filled < FIRST_READ {
        match limited.read(&mut bytes[filled..]) {
            Ok(0) => {
                bytes.truncate(filled);
                return Ok(bytes);
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let size = usize::try_from(metadata.len()).unwrap_or(0);
    bytes.reserve(size.saturating_sub(FIRST_READ));
    huge_pages(&mut bytes);
    limited.read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(bytes)
}

/// From this size on, a buffer is backed by huge pages (2 MiB each) where the kernel allows it.
const HUGE_FROM: usize = 8 << 20;

/// Asks the kernel to back the rest of a large buffer with huge pages while it is filled: one
/// page fault per 2 MiB instead of one per 4 KiB (a 44 MB ledger took 11,000 faults).
fn huge_pages(bytes: &mut Vec<u8>) {
    let spare = bytes.spare_capacity_mut();
    if spare.len() < HUGE_FROM {
        return;
    }
    let page = 4096;
    let start = spare.as_mut_ptr() as usize;
    let aligned = start.next_multiple_of(page);
    let len = (start + spare.len()).saturating_sub(aligned) / page * page;
    // SAFETY: the range lies within this vector's allocation, owned here; MADV_HUGEPAGE is a
    // hint about how to back it, which changes no byte of it. A refusal is ignored.
    unsafe {
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

/// A regular file opened for reading without blocking (for a caller that maps it): `Ok(None)`
/// when absent, an `InvalidData` error when something else stands there.
pub fn open_regular(path: &Path) -> std::io::Result<Option<std::fs::File>> {
    let file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(refused("not a regular file".into()));
    }
    Ok(Some(file))
}

/// A regular file to read a piece at a time, with [`read_file`]'s refusals: `Ok(None)` when
/// absent; anything but a regular file, or a file larger than [`max_artifact_bytes`] (as `fstat`
/// says, or as it turns out while read), an `InvalidData` error. For a reader that keeps nothing
/// of the file but what it finds in it (a 10 MB answers file read whole is 10 MB of fresh memory
/// the kernel must clear first).
pub fn open_capped(path: &Path) -> std::io::Result<Option<Capped>> {
    let Some(file) = open_regular(path)? else {
        return Ok(None);
    };
    let cap = max_artifact_bytes();
    let size = file.metadata()?.len();
    if size > cap {
        return Err(too_large(cap));
    }
    Ok(Some(Capped {
        file,
        left: cap,
        size,
    }))
}

/// See [`open_capped`].
pub struct Capped {
    file: std::fs::File,
    /// How many more bytes may be read.
    left: u64,
    size: u64,
}

impl Capped {
    /// The file's size when it was opened (it may change while read).
    pub fn size(&self) -> u64 {
        self.size
    }
}

impl Read for Capped {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // One byte past the cap tells a file that grew past it from one that ends there.
        let room = usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX);
        let len = buf.len().min(room);
        let n = self.file.read(&mut buf[..len])?;
        let left = self.left.checked_sub(n as u64);
        self.left = left.ok_or_else(|| too_large(max_artifact_bytes()))?;
        Ok(n)
    }
}

/// [`read_file`] as text; bytes that are not UTF-8 are an `InvalidData` error.
pub fn read_text(path: impl AsRef<Path>) -> std::io::Result<String> {
    String::from_utf8(read_file(path)?).map_err(|_| refused("not valid UTF-8".to_string()))
}

fn refused(what: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what)
}

fn too_large(cap: u64) -> std::io::Error {
    refused(format!(
        "larger than {cap} bytes, the limit on one artifact (git config ucg.maxArtifactBytes)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_not_a_regular_file_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let fifo = dir.path().join("fifo");
        let name = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap_or_default();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        for (path, what) in [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a device"),
            (dir.path(), "a directory"),
        ] {
            let error = read_file(path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(error.starts_with(what), "{path:?}: {error}");
        }
    }

    #[test]
    fn the_cap_holds_and_small_files_read_whole() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("f");
        std::fs::write(&file, vec![b'x'; 40_000]).unwrap_or_default();
        assert_eq!(read_file(&file).map(|b| b.len()).ok(), Some(40_000));
        assert!(matches!(
            read_file(dir.path().join("absent")).map_err(|e| e.kind()),
            Err(std::io::ErrorKind::NotFound)
        ));
    }
}
