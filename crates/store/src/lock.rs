//! One writer at a time per artifact directory: an exclusive `flock` on the directory's own handle.
//! Nothing is created in the directory, so a crash can never leave a stale lock file behind; the
//! kernel drops the lock when the process dies.

use super::StoreError;
use std::fs::{File, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

/// Seconds to wait for another writer (default 10); tests set it low.
pub(crate) const LOCK_TIMEOUT_ENV: &str = "GIT_UCG_LOCK_TIMEOUT";

/// Holds the lock until dropped.
#[derive(Debug)]
pub struct DirLock {
    _handle: File,
}

/// Takes the exclusive lock on `dir`, waiting up to the configured timeout.
pub fn lock_dir(dir: &Path) -> Result<DirLock, StoreError> {
    let seconds = lock_timeout()?;
    let handle = File::open(dir).map_err(|e| StoreError::io(dir, "open for locking", e))?;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        match handle.try_lock() {
            Ok(()) => {
                // Under the lock, no writer of ours is mid-write here: old temporaries are litter.
                super::atomic::sweep_directory(dir);
                return Ok(DirLock { _handle: handle });
            }
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

/// The wait in seconds: `GIT_UCG_LOCK_TIMEOUT` (a whole number of seconds), else (unset or
/// empty) 10. Anything
/// else is refused rather than read as "forever" or as the default.
fn lock_timeout() -> Result<u64, StoreError> {
    match std::env::var_os(LOCK_TIMEOUT_ENV).filter(|v| !v.is_empty()) {
        None => Ok(10),
        Some(value) => value
            .to_str()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .ok_or_else(|| StoreError::BadLockTimeout {
                value: value.to_string_lossy().into_owned(),
            }),
    }
}
