//! Liveness, other sessions and garbage collection (docs/formats/ultragoal.md §2.9, §3.2): a state is
//! live while touched recently — six hours when active, thirty minutes when not — on the GC axis
//! (`last_touched_at`) or, for adoption, the progress axis (`progress_touched_at`).

use super::session::Session;
use super::state::{self, State};
use super::Reply;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub const ACTIVE_TTL_SECS: i64 = 6 * 60 * 60;
pub const INACTIVE_TTL_SECS: i64 = 30 * 60;

/// Parses a stamp as JavaScript's `Date.parse` reads the ones ultragoal writes: RFC 3339 with an
/// offset or `Z`, or a local date-time without one.
pub fn parse_stamp(text: &str) -> Option<jiff::Timestamp> {
    if let Ok(stamp) = text.parse::<jiff::Timestamp>() {
        return Some(stamp);
    }
    let civil: jiff::civil::DateTime = text.parse().ok()?;
    civil
        .to_zoned(jiff::tz::TimeZone::system())
        .ok()
        .map(|z| z.timestamp())
}

/// Seconds since the stamp (a future stamp counts as 0 — live).
pub fn idle_secs(stamp: jiff::Timestamp, now: jiff::Timestamp) -> i64 {
    (now.as_second() - stamp.as_second()).max(0)
}

fn stamp_of(state: &State, keys: &[&str]) -> Option<jiff::Timestamp> {
    keys.iter()
        .filter_map(|key| state.get(*key).and_then(Value::as_str))
        .find_map(parse_stamp)
}

/// The GC axis: last_touched_at, else started_at.
pub fn touched(state: &State) -> Option<jiff::Timestamp> {
    stamp_of(state, &["last_touched_at", "started_at"])
}

/// The progress axis: progress_touched_at, else the GC axis.
pub fn progress_touched(state: &State) -> Option<jiff::Timestamp> {
    stamp_of(
        state,
        &["progress_touched_at", "last_touched_at", "started_at"],
    )
}

/// The TTL rule; a state without a parseable time is dead.
pub fn is_live(state: &State, touched: Option<jiff::Timestamp>, now: jiff::Timestamp) -> bool {
    live_for(state::is_active(state), touched, now)
}

fn live_for(active: bool, touched: Option<jiff::Timestamp>, now: jiff::Timestamp) -> bool {
    let ttl = if active {
        ACTIVE_TTL_SECS
    } else {
        INACTIVE_TTL_SECS
    };
    touched.is_some_and(|t| idle_secs(t, now) < ttl)
}

/// A file's modification time.
fn modified(path: &Path) -> Option<jiff::Timestamp> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    jiff::Timestamp::try_from(modified).ok()
}

/// The other sessions' state files in the directory: (sid, path), by name.
fn other_sessions(session: &Session) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&session.dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let sid = name
                .strip_prefix("ultragoal-state-")?
                .strip_suffix(".json")?;
            (super::dir::is_safe_session_id(sid) && sid != session.sid)
                .then(|| (sid.to_string(), entry.path()))
        })
        .collect();
    found.sort();
    found
}

/// A pursuit another session may take over: active, progress-live, not a pristine seed.
fn adoptable(state: &State, now: jiff::Timestamp) -> bool {
    state::is_active(state)
        && is_live(state, progress_touched(state), now)
        && !super::is_pristine(state)
}

fn read_state(path: &Path) -> Option<State> {
    state::parse(&std::fs::read(path).ok()?)
}

/// `list-others`: `<sid prefix>\t<sid>\t<outcome>\t<started_at>\t<idle>s` per adoptable pursuit.
pub fn list_others(session: &Session, json: bool) -> std::result::Result<Reply, String> {
    let now = jiff::Timestamp::now();
    let mut lines = String::new();
    let mut docs = Vec::new();
    for (sid, path) in other_sessions(session) {
        let Some(other) = read_state(&path).filter(|s| adoptable(s, now)) else {
            continue;
        };
        let idle = stamp_of(&other, &["progress_touched_at", "last_touched_at"])
            .map_or(0, |t| idle_secs(t, now));
        let prefix: String = sid.chars().take(8).collect();
        let outcome = state::text(&other, "outcome");
        let started = state::text(&other, "started_at");
        lines.push_str(&format!("{prefix}\t{sid}\t{outcome}\t{started}\t{idle}s\n"));
        docs.push(serde_json::json!({
            "session": sid, "outcome": outcome, "started_at": started,
            "phase": state::phase(&other), "idle_secs": idle,
        }));
    }
    if json {
        let doc = serde_json::json!({"schema": "git-ucg.goal-others/1", "sessions": docs});
        return Ok(Reply::out(format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        )));
    }
    Ok(Reply::out(lines))
}

/// `adopt --src SID`: move another session's live pursuit to this session — both state locks
/// held (taken in name order), so no writer of either file runs meanwhile, and the rename cannot
/// race a write.
pub fn adopt(
    session: &Session,
    source: &str,
    warn: &mut dyn FnMut(String),
) -> std::result::Result<(), String> {
    use super::session::Read;
    if !super::dir::is_safe_session_id(source) {
        return Err(format!(
            "adopt: srcSid \"{source}\" fails safe-id validation"
        ));
    }
    let current = &session.sid;
    if source == current {
        return Err(format!(
            "adopt: self-adopt refused (srcSid === curSid === \"{current}\")"
        ));
    }
    let from = Session::new(session.dir.clone(), source.to_string());
    let (src_path, dst_path) = (from.state_file(), session.state_file());
    let (src, dst) = (src_path.display(), dst_path.display());
    let (first, second) = if from.sid < session.sid {
        (&from, session)
    } else {
        (session, &from)
    };
    let first_lock = first.lock()?;
    let second_lock = second.lock()?;
    let now = jiff::Timestamp::now();
    let Read::Parsed(adopted) = from.read() else {
        return Err(format!(
            "adopt: source \"{src}\" is missing or malformed (lost race or never existed)"
        ));
    };
    if !state::is_active(&adopted) {
        return Err(format!(
            "adopt: source \"{src}\" is not ACTIVE (r7: TERMINAL sources are refused)"
        ));
    }
    if !is_live(&adopted, progress_touched(&adopted), now) {
        return Err(format!(
            "adopt: source \"{src}\" failed the liveness check (r7: TTL-expired or no parseable \
timestamp — only live sources are adoptable)"
        ));
    }
    if super::is_pristine(&adopted) {
        return Err(format!(
            "adopt: source \"{src}\" is a pristine seed with no real work (r8: pristine sources are \
refused — nothing to adopt)."
        ));
    }
    match session.read() {
        Read::Corrupt(_) => {
            return Err(format!(
                "adopt: current session state \"{dst}\" is malformed. Please manually inspect and \
remove it, then re-invoke the skill."
            ))
        }
        Read::Parsed(existing) if state::is_active(&existing) && !super::is_pristine(&existing) => {
            return Err(format!(
                "adopt: current session has ACTIVE non-pristine state at \"{dst}\". Adoption refused \
to avoid overwriting in-progress work (r3)."
            ))
        }
        _ => {}
    }
    // Logged first: from then on the source session never re-seeds, so nothing can bring its
    // file back between the rename and the log line.
    let line = format!("{} ultragoal {source} -> {current}\n", state::now_stamp());
    if let Err(e) = append(&session.adoption_log(), &line) {
        warn(format!(
            "adopt: warning: failed to append adoption.log: {e}"
        ));
    }
    crate::store::rename(&src_path, &dst_path).map_err(|_| {
        format!(
            "adopt: source \"{src}\" vanished before rename (lost race — another session adopted it \
first). No mutation occurred."
        )
    })?;
    // The pursuit's verdicts, review and git base travel with it; whatever this session kept from
    // an earlier pursuit must not judge this one.
    for (theirs, ours) in [
        (from.verdict_file(), session.verdict_file()),
        (from.codereview_file(), session.codereview_file()),
    ] {
        let _ = crate::store::remove_if_present(&ours);
        let _ = crate::store::rename(&theirs, &ours);
    }
    super::base::move_to(&from.sid, &session.sid);
    // Both heartbeats restamped; the Codex objective is thread-scoped and stays behind.
    let mut adopted = adopted;
    adopted.insert("codex_goal_objective".into(), "".into());
    let lock = if first.sid == session.sid {
        &first_lock
    } else {
        &second_lock
    };
    session.commit(lock, adopted)
}

fn append(path: &Path, line: &str) -> std::result::Result<(), String> {
    crate::store::append(path, line.as_bytes())
        .map_err(|e| format!("cannot append to {}: {e}", path.display()))
}

/// What `goal gc` removes (or, dry, would remove), sorted, each with why: other sessions' state
/// that is no longer live on the GC axis, and review artifacts older than six hours whose session
/// is neither this one nor live. Each state file is judged
/// again under its lock before it goes.
pub fn gc(session: &Session, dry_run: bool) -> Vec<(PathBuf, String)> {
    let now = jiff::Timestamp::now();
    let mut reaped: Vec<(PathBuf, String)> = Vec::new();
    let mut live_sids = vec![session.sid.clone()];
    for (sid, path) in other_sessions(session) {
        let other = Session::new(session.dir.clone(), sid.clone());
        let Ok(lock) = other.lock() else {
            live_sids.push(sid);
            continue;
        };
        // Without a readable time (a seed being written, a file being repaired) the file's own
        // modification time stands in, as in the reference's shell GC; unreadable counts as active.
        let state = read_state(&path);
        let touched = state.as_ref().and_then(touched).or_else(|| modified(&path));
        let active = state.as_ref().is_none_or(state::is_active);
        let live = live_for(active, touched, now);
        if live {
            live_sids.push(sid);
            continue;
        }
        let why = match touched {
            Some(t) => format!("idle {}s", idle_secs(t, now)),
            None => "no readable time".to_string(),
        };
        if dry_run || crate::store::remove_if_present(&path).is_ok() {
            reaped.push((path, why));
        }
        drop(lock);
    }
    for entry in std::fs::read_dir(&session.dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let sid = ["ultragoal-verdict-", "ultragoal-codereview-"]
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix)?.strip_suffix(".json"));
        if sid.is_none_or(|sid| live_sids.iter().any(|l| l == sid)) {
            continue;
        };
        let age = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| std::time::SystemTime::now().duration_since(m).ok())
            .map_or(0, |d| d.as_secs() as i64);
        if age >= ACTIVE_TTL_SECS
            && (dry_run || crate::store::remove_if_present(&entry.path()).is_ok())
        {
            reaped.push((entry.path(), format!("artifact {age}s old")));
        }
    }
    reaped.sort();
    reaped
}
