//! The state lock the TypeScript CLI and its Stop hook take (docs/formats/ultragoal.md §3.4), so that
//! git-ucg, the reference CLI and the hook exclude one another: a directory `<state>.lock` made
//! with `mkdir` (atomic), holding `owner.json` `{ownerPid, token, startedAt}`.
//!
//! Contention fails closed: after the wait the write is refused, never done unlocked. Staleness is
//! the reference's rule, so the TypeScript CLI and git-ucg agree on who holds the lock: a lock is
//! stale when its valid owner record names a dead process, or when the directory is older than 30
//! seconds (whoever owns it), or cannot be examined. A stale lock is moved aside and removed under a
//! second `mkdir` guard `<lock>.recovery`, itself reclaimed by the same rule.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// A lock (or recovery guard) without a live owner older than this is stale.
pub(crate) const RECLAIM_AGE: Duration = Duration::from_secs(30);

/// Who holds the lock, inside its directory.
const OWNER_FILE: &str = "owner.json";

const RETRY_SLEEP: Duration = Duration::from_millis(5);
/// How long a writer waits for the lock (the reference: 100 attempts × 5 ms); `GIT_UCG_GOAL_LOCK_MS`
/// overrides it.
const DEFAULT_WAIT: Duration = Duration::from_millis(2000);

pub(crate) const CONTENDED: &str = "ultragoal-state: state lock contended; refusing unlocked write";

/// Holds the lock until dropped (or released).
#[derive(Debug)]
pub struct StateLock {
    dir: PathBuf,
    token: String,
}

fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn wait() -> Duration {
    std::env::var("GIT_UCG_GOAL_LOCK_MS")
        .ok()
        .and_then(|ms| ms.trim().parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_WAIT)
}

/// Takes the lock of `state_file`, waiting, reclaiming a stale lock; `Err` with the reference's
/// message on contention or a directory that cannot hold the lock.
pub fn acquire(state_file: &Path) -> Result<StateLock, String> {
    let dir = suffixed(state_file, ".lock");
    let deadline = Instant::now() + wait();
    loop {
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                let token = random_uuid();
                return match write_owner(&dir, &token) {
                    Ok(()) => Ok(StateLock { dir, token }),
                    Err(e) => {
                        let _ = std::fs::remove_dir_all(&dir);
                        Err(format!(
                            "cannot write {}: {e}",
                            dir.join(OWNER_FILE).display()
                        ))
                    }
                };
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if reclaim_if_stale(&dir) {
                    continue;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "cannot lock {}: its directory does not exist",
                    state_file.display()
                ))
            }
            Err(e) => return Err(format!("cannot lock {}: {e}", state_file.display())),
        }
        if Instant::now() >= deadline {
            return Err(CONTENDED.to_string());
        }
        std::thread::sleep(RETRY_SLEEP);
    }
}

fn write_owner(dir: &Path, token: &str) -> std::io::Result<()> {
    let started_ms = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let owner = serde_json::json!({
        "ownerPid": std::process::id(),
        "token": token,
        "startedAt": started_ms as u64,
    });
    std::fs::write(dir.join(OWNER_FILE), owner.to_string())
}

/// The owner record, when it is the reference's valid shape: a positive integer pid, a non-empty
/// token, a numeric start time.
struct Owner {
    pid: i32,
    token: String,
}

fn read_owner(dir: &Path) -> Option<Owner> {
    // Capped and without blocking: a FIFO or an endless file in its place is no owner.
    let bytes = crate::read::read_file(dir.join(OWNER_FILE)).ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let pid = doc.get("ownerPid")?.as_f64()?;
    let token = doc.get("token")?.as_str()?;
    doc.get("startedAt")?.as_f64()?;
    if pid.fract() != 0.0 || pid <= 0.0 || token.is_empty() {
        return None;
    }
    Some(Owner {
        pid: i32::try_from(pid as i64).unwrap_or(i32::MAX),
        token: token.to_string(),
    })
}

/// Whether a process is alive: signal 0 reaches it, or it exists but is not ours (EPERM).
fn is_alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 sends nothing; it only checks that the pid exists. `pid` is
    // positive, so it never addresses a process group.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The reference's staleness: the owner record names a dead process, or the directory was last
/// changed more than the reclaim age ago, or it cannot be examined.
fn is_stale(dir: &Path) -> bool {
    if read_owner(dir).is_some_and(|owner| !is_alive(owner.pid)) {
        return true;
    }
    match std::fs::metadata(dir).and_then(|m| m.modified()) {
        Ok(modified) => SystemTime::now()
            .duration_since(modified)
            .is_ok_and(|age| age > RECLAIM_AGE),
        // Gone (its holder just released it): nothing to reclaim. Judged stale, the rename that
        // follows would take the lock a new holder creates at that path a moment later. (A
        // dangling symlink in its place is there, and stale.)
        Err(_)
            if std::fs::symlink_metadata(dir)
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
        {
            false
        }
        Err(_) => true,
    }
}

/// Reclaims a stale lock under the recovery guard; whether it was reclaimed.
fn reclaim_if_stale(dir: &Path) -> bool {
    let mut reclaimed = false;
    let guarded = with_guard(dir, || {
        if is_stale(dir) {
            isolate(dir);
            reclaimed = true;
        }
    });
    guarded && reclaimed
}

/// Moves `path` aside (`.stale-<pid>-<uuid>`) and removes it.
fn isolate(path: &Path) {
    let aside = suffixed(
        path,
        &format!(".stale-{}-{}", std::process::id(), random_uuid()),
    );
    if std::fs::rename(path, &aside).is_ok() {
        let _ = std::fs::remove_dir_all(&aside);
    }
}

/// Runs `f` holding the recovery guard `<lock>.recovery` (itself reclaimed when stale); whether
/// the guard was had.
fn with_guard(lock: &Path, f: impl FnOnce()) -> bool {
    let guard = suffixed(lock, ".recovery");
    for _ in 0..2 {
        match std::fs::create_dir(&guard) {
            Ok(()) => {
                f();
                let _ = std::fs::remove_dir_all(&guard);
                return true;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if !is_stale(&guard) {
                    return false;
                }
                isolate(&guard);
            }
            Err(_) => return false,
        }
    }
    false
}

impl Drop for StateLock {
    /// Release: under the recovery guard, and only while `owner.json` still carries this holder's
    /// token — a successor's lock is never deleted. (The reference waits for the guard forever;
    /// here as long as a writer waits for the lock, then it releases without it.)
    fn drop(&mut self) {
        let deadline = Instant::now() + wait();
        let release = |dir: &Path, token: &str| {
            if read_owner(dir).is_some_and(|owner| owner.token == token) {
                let _ = std::fs::remove_dir_all(dir);
            }
        };
        loop {
            if with_guard(&self.dir, || release(&self.dir, &self.token)) {
                return;
            }
            if Instant::now() >= deadline {
                release(&self.dir, &self.token);
                return;
            }
            std::thread::sleep(RETRY_SLEEP);
        }
    }
}

/// A random version-4 UUID, from the kernel's generator.
pub fn random_uuid() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let filled = std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut bytes))
        .is_ok();
    if !filled {
        // Without the kernel's generator: unique enough for a lock token (pid, time, address).
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        bytes = (nanos ^ (u128::from(std::process::id()) << 64) ^ (&bytes as *const _ as u128))
            .to_le_bytes();
    }
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = crate::hex(&bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
