//! The state lock the TypeScript CLI and its Stop hook take (docs/formats/ultragoal.md §3.4), so that
//! git-ucg, the reference CLI and the hook exclude one another: a directory `<state>.lock` made
//! with `mkdir` (atomic), holding `owner.json` `{ownerPid, token, startedAt}`.
//!
//! Contention fails closed: after the wait the write is refused, never done unlocked. A lock whose
//! owner is dead (or whose pid now belongs to a process started after the lock was taken), or one
//! without a readable owner that is older than the reclaim age, is stale and reclaimed under a
//! second `mkdir` guard `<lock>.recovery`; what is moved aside is checked to be the very directory
//! judged stale, and put back otherwise. Where this differs from the reference on purpose: a lock
//! whose owner is alive is never reclaimed, however old (the reference also reclaims a live owner's
//! lock after 30 s).

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
                if reclaim_if_stale(&dir) && Instant::now() < deadline {
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
    started_ms: Option<u64>,
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
        started_ms: doc
            .get("startedAt")
            .and_then(serde_json::Value::as_f64)
            .filter(|ms| *ms >= 0.0)
            .map(|ms| ms as u64),
    })
}

/// Whether a process is alive: signal 0 reaches it, or it exists but is not ours (EPERM).
fn is_alive(pid: i32) -> bool {
    // SAFETY: kill with signal 0 sends nothing; it only checks that the pid exists. `pid` is
    // positive, so it never addresses a process group.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// When a process started, in ms since the epoch (Linux `/proc`; `None` elsewhere).
fn process_start_ms(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22 (starttime, in clock ticks since boot), counted after the command's closing `)`.
    let after_command = &stat[stat.rfind(')')? + 1..];
    let ticks: u64 = after_command.split_whitespace().nth(19)?.parse().ok()?;
    let boot_secs: u64 = std::fs::read_to_string("/proc/stat")
        .ok()?
        .lines()
        .find_map(|line| line.strip_prefix("btime ")?.trim().parse().ok())?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks_per_sec = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) })
        .ok()
        .filter(|t| *t > 0)?;
    Some(boot_secs * 1000 + ticks * 1000 / ticks_per_sec)
}

/// The owner's pid belongs to a process started after the lock was taken: the owner died and its
/// pid was reused (a second of slack for the clocks' granularity).
fn pid_reused(pid: i32, started_ms: Option<u64>) -> bool {
    match (process_start_ms(pid), started_ms) {
        (Some(process), Some(lock)) => process > lock.saturating_add(1000),
        _ => false,
    }
}

/// A directory entry's identity, without following a symbolic link.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

fn older_than_reclaim_age(path: &Path) -> bool {
    std::fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|modified| {
            SystemTime::now()
                .duration_since(modified)
                .is_ok_and(|age| age > RECLAIM_AGE)
        })
}

fn is_stale(dir: &Path) -> bool {
    match read_owner(dir) {
        Some(Owner {
            pid: Some(pid),
            started_ms,
            ..
        }) => !is_alive(pid) || pid_reused(pid, started_ms),
        _ => older_than_reclaim_age(dir),
    }
}

/// Reclaims a stale lock under the recovery guard; whether the caller should try again at once
/// (reclaimed, or the lock changed or vanished meanwhile).
fn reclaim_if_stale(dir: &Path) -> bool {
    let Some(judged) = identity(dir) else {
        return true;
    };
    if !is_stale(dir) {
        return false;
    }
    let Some(guard) = Guard::try_take(dir) else {
        return false;
    };
    // Judged again under the guard: another process may have reclaimed and re-locked meanwhile.
    let retry = match identity(dir) {
        Some(now) if now == judged => is_stale(dir) && isolate(dir, judged),
        _ => true,
    };
    drop(guard);
    retry
}

/// Moves `path` aside and removes it — if what moved is the entry `judged`; otherwise it is put
/// back (never over anything) and left alone.
fn isolate(path: &Path, judged: (u64, u64)) -> bool {
    let aside = suffixed(
        path,
        &format!(".stale-{}-{}", std::process::id(), random_uuid()),
    );
    if std::fs::rename(path, &aside).is_err() {
        return false;
    }
    if identity(&aside) == Some(judged) {
        let _ = std::fs::remove_dir_all(&aside);
        true
    } else {
        let _ = super::rename_no_replace(&aside, path);
        false
    }
}

/// The recovery guard `<lock>.recovery`, itself reclaimable when older than the reclaim age.
struct Guard(PathBuf);

impl Guard {
    fn try_take(lock: &Path) -> Option<Guard> {
        let path = suffixed(lock, ".recovery");
        match std::fs::create_dir(&path) {
            Ok(()) => Some(Guard(path)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let judged = identity(&path)?;
                if !(older_than_reclaim_age(&path) && isolate(&path, judged)) {
                    return None;
                }
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
    /// Release: under the recovery guard (or, if it cannot be had, without it), and only while
    /// `owner.json` still carries this holder's token — a successor's lock is never deleted.
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
