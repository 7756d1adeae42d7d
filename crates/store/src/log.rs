//! Append-only logs: bytes are only ever added at the end, in one write. A last line left torn
//! by a crash is either ended (a newline first) or cut off before anything is appended, as each
//! log's owner decides; nothing before it is ever rewritten.

use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// `path` opened to append (and read, with `read`), created when absent with `create`. Opened
/// without blocking: a FIFO in a log's place (no reader on the other end) or a device is an
/// error, never a hang or an endless write.
fn open_log(path: &Path, create: bool, read: bool) -> std::io::Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(create)
        .read(read)
        .append(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// Appends `bytes` to `path` in one write, creating the file when it is absent. A log opened
/// this way stays append-only: nothing before the end is ever rewritten.
pub fn append(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    open_log(path, true, false)?.write_all(bytes)
}

/// Appends `bytes` to the existing file `path` (absent is an error: the log belongs to someone
/// else, who creates it) and syncs it: an appended section survives a crash once this returns.
pub fn append_existing_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = open_log(path, false, false)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Appends one line to an existing log in a single write, then syncs it; a torn last line is
/// ended first. The file must exist (the log is never created here).
pub fn append_line_to_existing(path: &Path, line: &str) -> std::io::Result<()> {
    let mut file = open_log(path, false, true)?;
    let len = file.metadata()?.len();
    let mut torn = false;
    if len > 0 {
        let mut last = [0u8; 1];
        file.seek(SeekFrom::Start(len - 1))?;
        file.read_exact(&mut last)?;
        torn = last[0] != b'\n';
    }
    let mut bytes = Vec::with_capacity(line.len() + 2);
    if torn {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    file.write_all(&bytes)?;
    file.sync_all()
}

/// Which step of [`append_cutting_torn_tail`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendStep {
    Open,
    CutTornTail,
    Write,
    Sync,
}

/// Appends `bytes` to `path` (created if absent) in one write, synced (`fdatasync`). A last line
/// without its newline is first ended when `is_whole` accepts it, else cut off: the number of
/// bytes cut is returned.
pub fn append_cutting_torn_tail(
    path: &Path,
    bytes: &[u8],
    is_whole: impl Fn(&[u8]) -> bool,
) -> Result<Option<usize>, (AppendStep, std::io::Error)> {
    let mut file = open_log(path, true, true).map_err(|e| (AppendStep::Open, e))?;
    let truncated = cut_torn_tail(&mut file, is_whole).map_err(|e| (AppendStep::CutTornTail, e))?;
    file.write_all(bytes).map_err(|e| (AppendStep::Write, e))?;
    // The appended bytes and the length that makes them readable.
    file.sync_data().map_err(|e| (AppendStep::Sync, e))?;
    Ok(truncated)
}

/// A last line without its newline: cut back to the last newline when it is torn (`is_whole`
/// refuses it), or ended with its newline when it is whole. The bytes cut, if any.
fn cut_torn_tail(
    file: &mut std::fs::File,
    is_whole: impl Fn(&[u8]) -> bool,
) -> std::io::Result<Option<usize>> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    // Look back for the last newline, a block at a time.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    let keep = loop {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(at) = chunk.iter().rposition(|b| *b == b'\n') {
            break start + at as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
        end = start;
    };
    if keep == len {
        return Ok(None);
    }
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(keep))?;
    file.read_to_end(&mut tail)?;
    if is_whole(&tail) {
        file.write_all(b"\n")?;
        return Ok(None);
    }
    file.set_len(keep)?;
    Ok(Some((len - keep) as usize))
}
