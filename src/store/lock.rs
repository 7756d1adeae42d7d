//! One writer at a time per artifact directory: an exclusive `flock` on the directory's own handle.
//! Nothing is created in the directory, so a crash can never leave a stale lock file behind; the
//! kernel drops the lock when the process dies.

use super::StoreError;
use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// Seconds to wait for another writer (default 10); tests set it low.
pub const LOCK_TIMEOUT_ENV: &str = "GIT_UCG_LOCK_TIMEOUT";

/// Holds the lock until dropped.
#[derive(Debug)]
pub struct DirLock {
    _handle: File,
}

/// Takes the exclusive lock on `dir`, waiting up to the configured timeout.
pub fn lock_dir(dir: &Path) -> Result<DirLock, StoreError> {
    let seconds = std::env::var(LOCK_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(10);
    let handle = File::open(dir).map_err(|e| StoreError::io(dir, "open for locking", e))?;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        match handle.try_lock() {
            Ok(()) => return Ok(DirLock { _handle: handle }),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(StoreError::Locked {
                    dir: dir.to_path_buf(),
                    seconds,
                })
            }
            Err(TryLockError::Error(e)) => return Err(StoreError::io(dir, "lock", e)),
        }
    }
}
