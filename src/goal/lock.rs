//! The state lock the TypeScript CLI and its Stop hook take (formats/ultragoal.md §3.4), so that
//! git-ucg, the reference CLI and the hook exclude one another: a directory `<state>.lock` made
//! with `mkdir` (atomic), holding `owner.json` `{ownerPid, token, startedAt}`.
//!
//! Contention fails closed: after the wait the write is refused, never done unlocked. A lock whose
//! owner is dead, or one without a readable owner that is older than the reclaim age, is stale and
//! reclaimed under a second `mkdir` guard `<lock>.recovery`. Where this differs from the reference
//! on purpose: a lock whose owner is alive is never reclaimed, however old (the reference also
//! reclaims a live owner's lock after 30 s).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// A lock (or recovery guard) without a live owner older than this is stale.
pub const RECLAIM_AGE: Duration = Duration::from_secs(30);
const RETRY_SLEEP: Duration = Duration::from_millis(5);
/// How long a writer waits for the lock (the reference: 100 attempts × 5 ms); `GIT_UCG_GOAL_LOCK_MS`
/// overrides it.
const DEFAULT_WAIT: Duration = Duration::from_millis(2000);

pub const CONTENDED: &str = "ultragoal-state: state lock contended; refusing unlocked write";

/// Holds the lock until dropped (or released).
#[derive(Debug)]
pub struct StateLock {
    dir: PathBuf,
    token: String,
}

pub fn lock_path(state_file: &Path) -> PathBuf {
    suffixed(state_file, ".lock")
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
    let dir = lock_path(state_file);
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
                            dir.join("owner.json").display()
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
    let mut file = std::fs::File::create(dir.join("owner.json"))?;
    file.write_all(owner.to_string().as_bytes())?;
    Ok(())
}

struct Owner {
    pid: Option<i32>,
    token: Option<String>,
}

fn read_owner(dir: &Path) -> Option<Owner> {
    let bytes = std::fs::read(dir.join("owner.json")).ok()?;
    let doc: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    Some(Owner {
        pid: doc
            .get("ownerPid")
            .and_then(serde_json::Value::as_i64)
            .and_then(|pid| i32::try_from(pid).ok())
            .filter(|pid| *pid > 0),
        token: doc
            .get("token")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string),
    })
}

/// Whether a process is alive: signal 0 reaches it, or it exists but is not ours (EPERM).
fn is_alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 sends nothing; it only checks that the pid exists. `pid` is
    // positive, so it never addresses a process group.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

fn older_than_reclaim_age(path: &Path) -> bool {
    match std::fs::metadata(path).and_then(|m| m.modified()) {
        Ok(modified) => SystemTime::now()
            .duration_since(modified)
            .is_ok_and(|age| age > RECLAIM_AGE),
        // Gone already, or not statable: either way nothing live holds it.
        Err(_) => true,
    }
}

fn is_stale(dir: &Path) -> bool {
    match read_owner(dir).and_then(|owner| owner.pid) {
        Some(pid) => !is_alive(pid),
        None => older_than_reclaim_age(dir),
    }
}

/// Reclaims a stale lock under the recovery guard; whether it did (or the lock vanished).
fn reclaim_if_stale(dir: &Path) -> bool {
    if !is_stale(dir) {
        return false;
    }
    let Some(guard) = Guard::try_take(dir) else {
        return false;
    };
    // Judge again under the guard: another process may have reclaimed and re-locked meanwhile.
    let reclaimed = !dir.exists()
        || is_stale(dir) && {
            let aside = suffixed(
                dir,
                &format!(".stale-{}-{}", std::process::id(), random_uuid()),
            );
            std::fs::rename(dir, &aside).is_ok() && {
                let _ = std::fs::remove_dir_all(&aside);
                true
            }
        };
    drop(guard);
    reclaimed
}

/// The recovery guard `<lock>.recovery`, itself reclaimable when stale.
struct Guard(PathBuf);

impl Guard {
    fn try_take(lock: &Path) -> Option<Guard> {
        let path = suffixed(lock, ".recovery");
        match std::fs::create_dir(&path) {
            Ok(()) => Some(Guard(path)),
            Err(_) if older_than_reclaim_age(&path) => {
                let _ = std::fs::remove_dir(&path);
                std::fs::create_dir(&path).ok().map(|()| Guard(path))
            }
            Err(_) => None,
        }
    }

    fn take_waiting(lock: &Path, deadline: Instant) -> Option<Guard> {
        loop {
            if let Some(guard) = Guard::try_take(lock) {
                return Some(guard);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(RETRY_SLEEP);
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

impl Drop for StateLock {
    /// Release: under the recovery guard, and only while `owner.json` still carries this holder's
    /// token — a successor's lock is never deleted.
    fn drop(&mut self) {
        let guard = Guard::take_waiting(&self.dir, Instant::now() + wait());
        let ours = read_owner(&self.dir).and_then(|owner| owner.token) == Some(self.token.clone());
        if ours {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
        drop(guard);
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
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
