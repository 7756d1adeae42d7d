//! Liveness, other sessions and garbage collection (docs/formats/ultragoal.md §2.9, §3.2): a state is
//! live while touched recently — six hours when active, thirty minutes when not — on the GC axis
//! (`last_touched_at`) or, for adoption, the progress axis (`progress_touched_at`).

use super::dir;
use super::js::{self, JsValue};
use super::session::Session;
use super::state::{self, text_field, State};
use super::Refusal;
use std::path::{Path, PathBuf};

use ucg_store::liveness::ACTIVE_TTL_SECS;

/// Parses a stamp as JavaScriptCore's `Date.parse` reads the forms ultragoal meets: ISO 8601
/// (`T` or a space, minutes or seconds, a fraction, `Z` or an offset; without one it is local
/// time), a date alone or a year alone (UTC), and RFC 2822 (`Thu, 20 Aug 2026 10:00:00 GMT`).
pub fn parse_stamp(text: &str) -> Option<jiff::Timestamp> {
    parse_iso(text).or_else(|| parse_rfc2822(text))
}

fn digits(text: &str, n: usize) -> Option<(i64, &str)> {
    let head = text.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &text[n..]))
}

fn parse_iso(text: &str) -> Option<jiff::Timestamp> {
    let (year, rest) = digits(text, 4)?;
    if rest.is_empty() {
        return utc(civil(year, 1, 1, 0, 0, 0, 0)?, 0);
    }
    let rest = rest.strip_prefix('-')?;
    let (month, rest) = digits(rest, 2)?;
    if rest.is_empty() {
        return utc(civil(year, month, 1, 0, 0, 0, 0)?, 0);
    }
    let rest = rest.strip_prefix('-')?;
    let (day, rest) = digits(rest, 2)?;
    if rest.is_empty() {
        return utc(civil(year, month, day, 0, 0, 0, 0)?, 0);
    }
    let rest = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' '))?;
    let (hour, rest) = digits(rest, 2)?;
    let rest = rest.strip_prefix(':')?;
    let (minute, mut rest) = digits(rest, 2)?;
    let mut second = 0;
    let mut millis = 0;
    if let Some(after) = rest.strip_prefix(':') {
        let (s, after) = digits(after, 2)?;
        second = s;
        rest = after;
        if let Some(fraction) = rest.strip_prefix('.') {
            let len = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if len == 0 {
                return None;
            }
            let padded = format!("{:0<3}", &fraction[..len.min(3)]);
            millis = padded.parse().ok()?;
            rest = &fraction[len..];
        }
    }
    if hour > 24
        || minute > 59
        || second > 59
        || (hour == 24 && (minute, second, millis) != (0, 0, 0))
    {
        return None;
    }
    let offset_minutes = match rest {
        "" => {
            let civil = civil(year, month, day, hour, minute, second, millis)?;
            return civil
                .to_zoned(jiff::tz::TimeZone::system())
                .ok()
                .map(|z| z.timestamp());
        }
        "Z" => 0,
        offset => minutes_east(offset, true)?,
    };
    utc(
        civil(year, month, day, hour, minute, second, millis)?,
        offset_minutes,
    )
}

/// A `±hhmm` offset (or `±hh:mm` when `colon`) in minutes east of UTC.
fn minutes_east(offset: &str, colon: bool) -> Option<i64> {
    let sign = match offset.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (h, rest) = digits(&offset[1..], 2)?;
    let rest = match colon {
        true => rest.strip_prefix(':').unwrap_or(rest),
        false => rest,
    };
    let (m, rest) = digits(rest, 2)?;
    rest.is_empty().then_some(sign * (h * 60 + m))
}

/// The instant a civil date and time is on a clock `offset` minutes east of UTC.
fn utc(civil: jiff::civil::DateTime, offset: i64) -> Option<jiff::Timestamp> {
    let zoned = civil.to_zoned(jiff::tz::TimeZone::UTC).ok()?;
    zoned
        .timestamp()
        .checked_sub(jiff::Span::new().minutes(offset))
        .ok()
}

/// A date and time on no clock yet; days past the month's end roll over, as JavaScriptCore
/// lets them, but a month or day out of range reads as no date (`NaN` there).
fn civil(
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
) -> Option<jiff::civil::DateTime> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let date = jiff::civil::date(i16::try_from(year).ok()?, month as i8, 1)
        .checked_add(jiff::Span::new().days(day - 1))
        .ok()?;
    date.to_datetime(jiff::civil::time(0, 0, 0, 0))
        .checked_add(
            jiff::Span::new()
                .hours(hour)
                .minutes(minute)
                .seconds(second)
                .milliseconds(millis),
        )
        .ok()
}

/// `Thu, 20 Aug 2026 10:00:00 GMT` (or `+0000`), the day name optional.
fn parse_rfc2822(text: &str) -> Option<jiff::Timestamp> {
    let text = match text.split_once(", ") {
        Some((day, rest)) if day.len() == 3 => rest,
        _ => text,
    };
    let parts: Vec<&str> = text.split(' ').collect();
    let [day, month, year, time, zone] = parts[..] else {
        return None;
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS.iter().position(|m| *m == month)? as i64 + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let hms: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let [hour, minute, second] = hms[..] else {
        return None;
    };
    let offset = match zone {
        "GMT" | "UTC" | "UT" | "Z" => 0,
        zone => minutes_east(zone, false)?,
    };
    utc(civil(year, month, day, hour, minute, second, 0)?, offset)
}

/// Seconds since the stamp (a future stamp counts as 0 — live).
pub fn idle_secs(stamp: jiff::Timestamp, now: jiff::Timestamp) -> i64 {
    (now.as_second() - stamp.as_second()).max(0)
}

fn stamp_of(state: &State, keys: &[&str]) -> Option<jiff::Timestamp> {
    keys.iter()
        .filter_map(|key| state.get(key).and_then(JsValue::as_str))
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
pub(crate) fn live_for(
    active: bool,
    touched: Option<jiff::Timestamp>,
    now: jiff::Timestamp,
) -> bool {
    touched.is_some_and(|t| ucg_store::liveness::is_live(active, idle_secs(t, now)))
}

/// A file's modification time.
fn modified(path: &Path) -> Option<jiff::Timestamp> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok()?;
    jiff::Timestamp::try_from(modified).ok()
}

/// The state files in `dir` of sessions other than `session`: (sid, file name), by file name.
fn state_files(dir: &Path, session: &Session) -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    let pair = |name: String| {
        let sid = dir::session_of(&name, dir::STATE_PREFIX)?.to_string();
        (sid != session.sid).then_some((sid, name))
    };
    names.into_iter().filter_map(pair).collect()
}

fn read_state(path: &Path) -> Option<State> {
    state::parse(&ucg_store::read_file(path).ok()?)
}

/// `isProgressLive`: the TTL rule on `progress_touched_at ?? last_touched_at` (a falsy one falls
/// back to `started_at`); no parseable time is dead.
fn progress_live(state: &State, now: jiff::Timestamp) -> bool {
    let touched = text_field(state, "progress_touched_at").or(text_field(state, "last_touched_at"));
    // An empty stamp parses as no time, and falls back.
    let stamp = touched.and_then(|t| parse_stamp(&t));
    let stamp = stamp.or_else(|| parse_stamp(&text_field(state, "started_at")?));
    live_for(state::is_active(state), stamp, now)
}

/// Whole seconds since the epoch, as `Math.floor(Date.now() / 1000)`.
fn epoch_secs(t: jiff::Timestamp) -> i64 {
    t.as_millisecond().div_euclid(1000)
}

/// `list-others`: `<sid prefix>\t<sid>\t<outcome>\t<started_at>\t<idle>s` per other session whose
/// state is active, progress-live and not pristine (`String(x)` of what the file holds).
pub fn list_others(session: &Session, json: bool) -> std::result::Result<String, Refusal> {
    let dir = session.use_dir()?.to_path_buf();
    let now = jiff::Timestamp::now();
    let mut lines = String::new();
    let mut docs = Vec::new();
    for (sid, name) in state_files(&dir, session) {
        let Some(other) = read_state(&dir.join(&name)) else {
            continue;
        };
        if !state::is_active(&other) || !progress_live(&other, now) || super::is_pristine(&other) {
            continue;
        }
        let touched = text_field(&other, "progress_touched_at")
            .or(text_field(&other, "last_touched_at"))
            .unwrap_or_default();
        // An empty stamp parses as no time: idle 0.
        let idle = parse_stamp(&touched).map_or(0, |t| (epoch_secs(now) - epoch_secs(t)).max(0));
        let prefix: String = sid.chars().take(8).collect();
        let shown = |key| {
            js::string_of(Some(js::present(other.get(key)).unwrap_or(&"".into()))).to_string()
        };
        let (outcome, started) = (shown("outcome"), shown("started_at"));
        lines.push_str(&format!("{prefix}\t{sid}\t{outcome}\t{started}\t{idle}s\n"));
        docs.push(serde_json::json!({
            "session": sid, "outcome": outcome, "started_at": started,
            "phase": state::text(&other, "phase"), "idle_secs": idle,
        }));
    }
    if json {
        let doc = serde_json::json!({"schema": "git-ucg.goal-others/1", "sessions": docs});
        return Ok(format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        ));
    }
    Ok(lines)
}

/// `adopt --src SID` (the reference's rules r1–r8): another session's live pursuit becomes this
/// session's — renamed, both heartbeats restamped, logged (a restamp or log that fails is one of
/// the `warnings`). The adopter's own review artifacts stay where they are, as in the reference.
pub fn adopt(
    session: &Session,
    source: &str,
    warnings: &mut Vec<String>,
) -> std::result::Result<(), Refusal> {
    if !super::dir::is_safe_session_id(source) {
        return Err(format!("adopt: srcSid \"{source}\" fails safe-id validation").into());
    }
    let current = &session.sid;
    if source == current {
        return Err(
            format!("adopt: self-adopt refused (srcSid === curSid === \"{current}\")").into(),
        );
    }
    session.use_dir()?;
    let from = Session::new(session.dir.clone(), source.to_string());
    let (src_path, dst_path) = (from.state_file(), session.state_file());
    let (src, dst) = (src_path.display(), dst_path.display());
    let now = jiff::Timestamp::now();
    let Some(adopted) = read_state(&src_path) else {
        return Err(format!(
            "adopt: source \"{src}\" is missing or malformed (lost race or never existed)"
        )
        .into());
    };
    if !state::is_active(&adopted) {
        return Err(format!(
            "adopt: source \"{src}\" is not ACTIVE (r7: TERMINAL sources are refused)"
        )
        .into());
    }
    if !progress_live(&adopted, now) {
        return Err(format!(
            "adopt: source \"{src}\" failed the liveness check (r7: TTL-expired or no parseable \
timestamp — only live sources are adoptable)"
        )
        .into());
    }
    if super::is_pristine(&adopted) {
        return Err(format!(
            "adopt: source \"{src}\" is a pristine seed with no real work (r8: pristine sources are \
refused — nothing to adopt)."
        ).into());
    }
    match dst_path.exists().then(|| read_state(&dst_path)) {
        Some(None) => {
            return Err(format!(
                "adopt: current session state \"{dst}\" is malformed. Please manually inspect and \
remove it, then re-invoke the skill."
            )
            .into())
        }
        Some(Some(existing)) if state::is_active(&existing) && !super::is_pristine(&existing) => {
            return Err(format!(
                "adopt: current session has ACTIVE non-pristine state at \"{dst}\". Adoption \
refused to avoid overwriting in-progress work (r3)."
            )
            .into())
        }
        _ => {}
    }
    ucg_store::rename(&src_path, &dst_path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "adopt: source \"{src}\" vanished before rename (lost race — another session adopted \
it first). No mutation occurred."
            )
        } else {
            format!("cannot rename {src} to {dst}: {e}")
        }
    })?;
    super::base::move_to(&from.sid, &session.sid);
    // r5: both heartbeats restamped, every key kept (best effort).
    let restamped = read_state(&dst_path)
        .ok_or_else(|| {
            Refusal::Thrown(format!(
                "restampAfterAdopt: \"{dst}\" does not contain a JSON object"
            ))
        })
        .and_then(|mut whole| {
            let now = state::now_stamp();
            whole.set("last_touched_at", now.clone().into());
            whole.set("progress_touched_at", now.into());
            session.write_unlocked(&state::to_bytes(&whole))
        });
    if let Err(e) = restamped {
        warnings.push(format!(
            "adopt: warning: post-rename heartbeat re-stamp failed for \"{dst}\": {}",
            e.message()
        ));
    }
    let line = format!("{} ultragoal {source} -> {current}\n", state::now_stamp());
    let log = session.adoption_log();
    if let Err(e) = ucg_store::append(&log, line.as_bytes()) {
        warnings.push(format!(
            "adopt: warning: failed to append adoption.log: cannot append to {}: {e}",
            log.display()
        ));
    }
    Ok(())
}

/// What `goal gc` removes (or, dry, would remove), sorted, each with why: other sessions' state
/// that is no longer live on the GC axis, and review artifacts older than six hours whose session
/// is neither this one nor live. Each state file is judged
/// again under its lock before it goes.
pub fn gc(session: &Session, dry_run: bool) -> Vec<(PathBuf, String)> {
    let now = jiff::Timestamp::now();
    let mut reaped: Vec<(PathBuf, String)> = Vec::new();
    let mut live_sids = vec![session.sid.clone()];
    // The other sessions' state files with a safe id, in file-name order (their order does not
    // matter: what is reaped is sorted, the live ids are only looked up).
    let others = state_files(&session.dir, session)
        .into_iter()
        .filter(|(sid, _)| dir::is_safe_session_id(sid));
    for (sid, name) in others {
        let path = session.dir.join(name);
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
        if dry_run || ucg_store::remove_if_present(&path).is_ok() {
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
        let sid = [dir::VERDICT_PREFIX, dir::CODEREVIEW_PREFIX]
            .iter()
            .find_map(|prefix| dir::session_of(&name, prefix));
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
            && (dry_run || ucg_store::remove_if_present(&entry.path()).is_ok())
        {
            reaped.push((entry.path(), format!("artifact {age}s old")));
        }
    }
    reaped.sort();
    reaped
}

#[cfg(test)]
mod tests {
    use super::parse_stamp;

    #[test]
    fn a_month_or_day_out_of_range_is_no_date_with_or_without_a_zone() {
        // Without a zone the stamp is local time: it once reached a constructor that panics.
        for text in [
            "2026-13-01T10:00",
            "2026-13-01T10:00Z",
            "2026-01-00T10:00",
            "2026-01-32T10:00:00+01:00",
        ] {
            assert_eq!(parse_stamp(text), None, "{text}");
        }
        assert!(parse_stamp("2026-01-31T10:00").is_some());
        // The readers rely on it: an empty stamp is no time.
        assert_eq!(parse_stamp(""), None);
        assert!(parse_stamp("2026-02-31T10:00Z").is_some(), "rolls over");
    }
}
