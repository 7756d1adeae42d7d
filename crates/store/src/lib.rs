//! The only code that writes to the file system: atomic replacement (`atomic`), append-only logs
//! (`log`), the plain operations beside them (`plain`: remove, rename, create, a cache, an
//! executable), the writer locks (an `flock` on a directory, the ultragoal CLI's `mkdir` lock), the
//! one way to read an artifact (`read`: never blocking on a FIFO, capped in size) and "read a file
//! that may be absent", and the checks on symlinks and on story ids used in file
//! names (docs/product.md §6).

mod atomic;
pub mod js;
pub mod liveness;
mod lock;
mod log;
pub mod mkdir_lock;
mod names;
mod plain;
pub mod pyjson;
mod read;
pub mod stamp;
pub mod visible;

pub use atomic::{
    read_if_present, read_optional, write_atomic, write_atomic_unsynced_with, write_atomic_with,
};
pub use lock::{lock_dir, DirLock};
pub use log::{
    append, append_cutting_torn_tail, append_existing_synced, append_line_to_existing, AppendStep,
};
pub use names::validate_story_id;
pub use plain::{
    create_dirs, create_new_synced, install_executable, install_readable, new_kept_temp_dir,
    remove_if_present, rename, replace_cache, replace_existing, scratch_dir, try_lock_file,
    write_creating_dirs, write_small, CreateNewError, InstallError,
};
pub use read::{
    file_kind, max_artifact_bytes, open_capped, open_regular, read_at, read_file,
    read_file_identified, read_text, set_max_artifact_bytes,
};
pub use stamp::{Freshness, Stamp, Stamper};

use std::path::{Path, PathBuf};

/// What can go wrong when touching artifacts.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {op}: {source}", path.display())]
    Io {
        path: PathBuf,
        op: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("another git-ucg is writing in {} (waited {seconds} s for its lock)", dir.display())]
    Locked { dir: PathBuf, seconds: u64 },
    #[error("refusing to write {}: it is a symlink to {}, outside {}", path.display(), target.display(), bound.display())]
    SymlinkOutside {
        path: PathBuf,
        target: PathBuf,
        bound: PathBuf,
    },
    #[error("refusing to write {}: it is a symlink to {}, which does not exist", path.display(), target.display())]
    DanglingSymlink { path: PathBuf, target: PathBuf },
    #[error("refusing to write in {}: a symlink on the way leads to {}, outside the project ({})", dir.display(), resolved.display(), bound.display())]
    DirectoryOutside {
        dir: PathBuf,
        resolved: PathBuf,
        bound: PathBuf,
    },
    #[error("GIT_UCG_LOCK_TIMEOUT={value:?} is not a whole number of seconds")]
    BadLockTimeout { value: String },
    #[error("invalid story id {id:?}: {reason}")]
    InvalidStoryId { id: String, reason: &'static str },
}

impl StoreError {
    pub fn io(path: &Path, op: &'static str, source: std::io::Error) -> Self {
        StoreError::Io {
            path: path.to_path_buf(),
            op,
            source,
        }
    }
}

/// git-ucg's own directory in a git directory, `<git dir>/ucg`: its caches, records and locks.
pub fn ucg_dir(git_dir: &Path) -> PathBuf {
    git_dir.join("ucg")
}

/// The directory `path` is in: its parent, or `.` for a bare file name.
pub fn dir_of(path: &Path) -> &Path {
    path.parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// A path as Python's `pathlib` prints it: `.` components and doubled or trailing separators
/// removed. The reference tools name files this way in their messages.
pub fn pathlib_display(path: &Path) -> String {
    use std::path::Component;
    let kept: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    if kept.as_os_str().is_empty() {
        ".".to_string()
    } else {
        kept.to_string_lossy().into_owned()
    }
}

/// `bytes` in lowercase hex, two digits each (digests, as the caches and ids write them).
pub fn hex(bytes: &[u8]) -> String {
    let mut hex = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        hex.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    hex
}

/// `path` with `.` and `..` resolved lexically, as git resolves the paths it prints relative to a
/// directory (the path need not exist).
pub fn lexical_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The file a write of `dir/name` must replace. A plain file (or no file) is itself; a symlink is
/// followed only when its target stays inside `dir` or one of `bounds` (e.g. the project root),
/// so an artifact directory cannot be used to overwrite files elsewhere. `bounds` is asked for
/// only when there is a symlink to judge.
///
/// With `bounds`, `dir` itself must also resolve inside one of them: a run folder or an artifact
/// directory that is a link (or lies below one) leading out of the project is refused, while one
/// linking to elsewhere inside it is followed.
pub fn write_target(
    dir: &Path,
    name: &str,
    bounds: impl FnOnce() -> Vec<PathBuf>,
) -> Result<PathBuf, StoreError> {
    let path = dir.join(name);
    let is_link = |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
    let canonical_dir = match dir.canonicalize() {
        Ok(dir) => dir,
        // No directory yet: nothing on the way to judge (the writer creates a real one).
        Err(_) if !is_link(&path) && !is_link(dir) => return Ok(path),
        Err(e) => return Err(StoreError::io(dir, "resolve", e)),
    };
    // Asked for only when there is a link to judge: on the way to `dir`, or `dir/name` itself.
    let bounds = std::cell::LazyCell::new(bounds);
    let lexical = std::path::absolute(dir).map(|d| lexical_normal(&d));
    if !lexical.is_ok_and(|lexical| lexical == canonical_dir) {
        let canonical: Vec<PathBuf> = bounds
            .iter()
            .filter_map(|b| b.canonicalize().ok())
            .collect();
        if let Some(bound) = canonical
            .first()
            .filter(|_| !canonical.iter().any(|b| canonical_dir.starts_with(b)))
        {
            return Err(StoreError::DirectoryOutside {
                dir: dir.to_path_buf(),
                resolved: canonical_dir,
                bound: bound.clone(),
            });
        }
    }
    if !is_link(&path) {
        return Ok(path);
    }
    // A dangling link is refused: where it would lead cannot be judged until its target exists.
    let target = path
        .canonicalize()
        .map_err(|_| StoreError::DanglingSymlink {
            target: std::fs::read_link(&path).unwrap_or_default(),
            path: path.clone(),
        })?;
    let inside = |bound: &Path| bound.canonicalize().is_ok_and(|b| target.starts_with(&b));
    if target.starts_with(&canonical_dir) || bounds.iter().any(|b| inside(b)) {
        Ok(target)
    } else {
        Err(StoreError::SymlinkOutside {
            path,
            target,
            bound: canonical_dir,
        })
    }
}
