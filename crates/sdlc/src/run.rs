//! One heavy-pipeline run (docs/formats/sdlc.md A.3, A.6): its `meta.json` snapshot, the phase
//! state reconstructed from its event log, the stale-running rule, the status line, the repair
//! of the snapshot toward the log, and the resume candidate. Pure functions over parsed data.

use super::events::Event;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub(crate) type Meta = Map<String, Value>;

/// The run's snapshot, in its directory.
pub const META_FILE: &str = "meta.json";

/// The phase map (A.3), by number.
pub const PHASE_NAMES: [&str; 13] = [
    "Doctor + memory load",
    "Requirements",
    "Feature branch",
    "Complexity scoring",
    "Spec (conditional)",
    "Plan",
    "QA Checklist",
    "Implementation",
    "QA Test Review",
    "Final code review (two rounds)",
    "QA gates (+ feature verification)",
    "QA Health Update",
    "Handoff",
];

/// A phase's state according to the event log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Logged {
    /// Started, and no terminal event after the last start.
    Open,
    Completed,
    Failed,
    Interrupted,
}

impl Logged {
    pub fn name(self) -> &'static str {
        match self {
            Logged::Open => "open",
            Logged::Completed => "completed",
            Logged::Failed => "failed",
            Logged::Interrupted => "interrupted",
        }
    }

    /// The `meta.json` status this state corresponds to: an open or interrupted phase is one to
    /// (re-)run, which the snapshot calls `running`.
    pub(crate) fn meta_status(self) -> &'static str {
        match self {
            Logged::Open | Logged::Interrupted => "running",
            Logged::Completed => "completed",
            Logged::Failed => "failed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PhaseRecord {
    pub state: Logged,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
}

/// What the log says about each phase it mentions, and what it could not make sense of.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Reconstruction {
    pub phases: BTreeMap<u8, PhaseRecord>,
    pub warnings: Vec<String>,
}

/// A.6.4, made deterministic: each phase's state follows its last `phase.started` — the terminal
/// event after it, else open; a terminal event without a start counts, with a warning. Events
/// without an integer phase in 0..=12 do not shape any phase.
pub fn reconstruct<'e>(events: impl Iterator<Item = &'e Event>) -> Reconstruction {
    let mut out = Reconstruction::default();
    for event in events {
        let Some(phase) = event.phase else {
            continue;
        };
        let terminal = match event.event.as_str() {
            "phase.started" => {
                out.phases.insert(
                    phase,
                    PhaseRecord {
                        state: Logged::Open,
                        started_at: event.ts.clone(),
                        ended_at: None,
                    },
                );
                continue;
            }
            "phase.completed" => Logged::Completed,
            "phase.failed" => Logged::Failed,
            "phase.interrupted" => Logged::Interrupted,
            _ => continue,
        };
        let record = out.phases.entry(phase).or_insert_with(|| {
            out.warnings.push(format!(
                "{} for phase {phase} without a phase.started before it",
                event.event
            ));
            PhaseRecord {
                state: terminal,
                started_at: None,
                ended_at: None,
            }
        });
        // Open, or ended already (a second terminal event for the same start): the later one
        // stands.
        record.state = terminal;
        record.ended_at = event.ts.clone();
    }
    out
}

pub fn text<'m>(meta: &'m Meta, key: &str) -> Option<&'m str> {
    meta.get(key).and_then(Value::as_str)
}

/// `phases["N"]` of the snapshot, when it is an object.
pub fn meta_phase(meta: &Meta, phase: u8) -> Option<&Map<String, Value>> {
    meta.get("phases")?
        .as_object()?
        .get(&phase.to_string())?
        .as_object()
}

pub(crate) fn meta_phase_status(meta: &Meta, phase: u8) -> Option<&str> {
    meta_phase(meta, phase)?.get("status")?.as_str()
}

pub(crate) fn current_phase(meta: &Meta) -> Option<u8> {
    meta.get("current_phase")
        .and_then(Value::as_u64)
        .filter(|p| *p <= 12)
        .map(|p| p as u8)
}

/// Parses an ISO timestamp as the runs write them (`Z` or an offset; a date-time without one is
/// read as UTC).
pub fn parse_ts(text: &str) -> Option<jiff::Timestamp> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(ts);
    }
    let civil: jiff::civil::DateTime = text.parse().ok()?;
    civil
        .to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| z.timestamp())
}

/// A.6.3: a `running` run started more than an hour ago with no phase completed in the last 30
/// minutes (inclusive) shows as `interrupted`. `Err` when the rule cannot be judged.
pub fn is_stale(meta: &Meta, now: jiff::Timestamp) -> Result<bool, String> {
    let started = text(meta, "started_at")
        .and_then(parse_ts)
        .ok_or("started_at is missing or not a timestamp: the stale-running rule cannot apply")?;
    // The hour first: the phases of a younger run are not read.
    let (now, hour) = (now.as_second(), started.as_second() + 3600);
    Ok(now > hour && now >= turns_stale(meta, started))
}

/// The second a `running` run started at `started` turns stale (A.6.3): the first past both an
/// hour after its start and half an hour after its latest completed phase.
fn turns_stale(meta: &Meta, started: jiff::Timestamp) -> i64 {
    let latest_done = meta
        .get("phases")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(_, phase)| {
            phase
                .get("completed_at")
                .and_then(Value::as_str)
                .and_then(parse_ts)
        })
        .map(|done| done.as_second())
        .max();
    (started.as_second() + 3601).max(latest_done.map_or(i64::MIN, |d| d + 1801))
}

/// The seconds of the clock, `[from, until)` (`None`: unbounded), over which
/// [`display_status`] shows what it shows at `now`: only a `running` run with a start time
/// depends on the clock, and it turns stale once for good — at the first second past both an
/// hour after its start and half an hour after its latest completed phase ([`turns_stale`]).
pub fn status_holds(meta: &Meta, now: jiff::Timestamp) -> (Option<i64>, Option<i64>) {
    if text(meta, "status") != Some("running") {
        return (None, None);
    }
    let Some(started) = text(meta, "started_at").and_then(parse_ts) else {
        return (None, None);
    };
    let turns = turns_stale(meta, started);
    match now.as_second() < turns {
        true => (None, Some(turns)),
        false => (Some(turns), None),
    }
}

/// The status shown: the stored one, `running` reclassified as `interrupted` when stale.
pub fn display_status(meta: &Meta, now: jiff::Timestamp, warnings: &mut Vec<String>) -> String {
    let stored = text(meta, "status").unwrap_or("unknown");
    if stored != "running" {
        return stored.to_string();
    }
    match is_stale(meta, now) {
        Ok(true) => "interrupted".into(),
        Ok(false) => "running".into(),
        Err(why) => {
            warnings.push(why);
            "running".into()
        }
    }
}

/// The phase the log proves the run is at: the lowest open phase; else the highest phase when it
/// failed or was interrupted. When the highest logged phase completed, the log does not say which
/// phase comes next (one may be skipped, or none started): it proves nothing, and nothing is
/// guessed.
pub(crate) fn logged_current(recon: &Reconstruction) -> Option<u8> {
    if let Some((phase, _)) = recon.phases.iter().find(|(_, r)| r.state == Logged::Open) {
        return Some(*phase);
    }
    let (phase, record) = recon.phases.iter().next_back()?;
    match record.state {
        Logged::Completed => None,
        _ => Some(*phase),
    }
}

/// One field of `meta.json` the log disagrees with.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The dotted path, e.g. `phases.4.status`.
    pub field: String,
    pub from: Value,
    pub to: Value,
}

/// A.6.5: the snapshot's phase-status fields that differ from the log (the status of every phase
/// the log mentions, and `current_phase`), as the changes that would repair them.
pub fn repairs(meta: &Meta, recon: &Reconstruction) -> Vec<Change> {
    let mut changes = Vec::new();
    for (phase, record) in &recon.phases {
        let stored = meta_phase_status(meta, *phase);
        let wanted = record.state.meta_status();
        if stored != Some(wanted) {
            changes.push(Change {
                field: format!("phases.{phase}.status"),
                from: stored.map_or(Value::Null, Value::from),
                to: wanted.into(),
            });
        }
    }
    if let Some(logged) = logged_current(recon) {
        let stored = current_phase(meta);
        if stored != Some(logged) {
            changes.push(Change {
                field: "current_phase".into(),
                from: meta.get("current_phase").cloned().unwrap_or(Value::Null),
                to: logged.into(),
            });
        }
    }
    changes
}

/// `meta.json`'s text with the changes applied in place: only the bytes of the changed values
/// move (a field the snapshot lacks is inserted); `None` when the text cannot be edited so (not an
/// object, or a value on the way is not one).
pub fn apply_repairs_in_place(text: &str, changes: &[Change]) -> Option<String> {
    let mut text = text.to_string();
    for change in changes {
        let path: Vec<&str> = change.field.split('.').collect();
        text = crate::meta_edit::set(&text, &path, &change.to.to_string())?;
    }
    Some(text)
}

/// The effective state of each phase: the log's where it speaks, else the snapshot's.
fn effective<'m>(meta: &'m Meta, recon: &Reconstruction, phase: u8) -> Option<&'m str> {
    recon
        .phases
        .get(&phase)
        .map(|r| r.state.name())
        .or_else(|| meta_phase_status(meta, phase))
}

/// A.6.7: the phase a resume re-runs, by the document's three rules in order: (1) the first
/// phase with a `phase.started` event and no terminal event after it (`phase.completed`,
/// `phase.failed` and `phase.interrupted` are all terminal, step 4); else (2) the first phase the
/// snapshot marks `running`; else (3) the first pending phase after the last completed one — a
/// phase whose last attempt was interrupted is not done, and counts as pending again (skipped
/// phases passed over). With `allow_failed`, a failed phase counts as started and not ended.
pub fn resume_candidate(meta: &Meta, recon: &Reconstruction, allow_failed: bool) -> Option<u8> {
    let open = recon
        .phases
        .iter()
        .find(|(_, r)| r.state == Logged::Open || (allow_failed && r.state == Logged::Failed));
    if let Some((phase, _)) = open {
        return Some(*phase);
    }
    if let Some(phase) = (0..=12).find(|p| meta_phase_status(meta, *p) == Some("running")) {
        return Some(phase);
    }
    if allow_failed {
        if let Some(phase) = (0..=12).find(|p| effective(meta, recon, *p) == Some("failed")) {
            return Some(phase);
        }
    }
    let last_completed = (0..=12)
        .rev()
        .find(|p| effective(meta, recon, *p) == Some("completed"));
    let from = last_completed.map_or(0, |p| p + 1);
    (from..=12).find(|p| matches!(effective(meta, recon, *p), Some("pending" | "interrupted")))
}

/// A.6.10: `<run_id>  <mode>  phase=<n>  status=<status>  branch=<branch>` (two spaces), with
/// `unknown` for what neither the snapshot nor the log says.
pub fn status_line(run_id: &str, meta: &Meta, phase: Option<u8>, status: &str) -> String {
    let field = |key: &str| text(meta, key).unwrap_or("unknown").to_string();
    format!(
        "{run_id}  {}  phase={}  status={status}  branch={}",
        field("mode"),
        phase.map_or("unknown".to_string(), |p| p.to_string()),
        field("branch")
    )
}

/// The phase for the status line: the one the log proves (an open phase, or the last one when it
/// failed or was interrupted); else the snapshot's `current_phase`, unless the log shows the run
/// past it (a later phase logged), which makes it stale — then, as when neither says, unknown.
/// Nothing is guessed: a completed phase does not say which comes next.
pub fn shown_phase(meta: &Meta, recon: &Reconstruction) -> Option<u8> {
    if let Some(logged) = logged_current(recon) {
        return Some(logged);
    }
    let stored = current_phase(meta)?;
    let highest = recon.phases.keys().next_back().copied();
    match highest {
        Some(highest) if highest > stored => None,
        _ => Some(stored),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events;

    fn recon(lines: &str) -> Reconstruction {
        let log = events::parse(lines.as_bytes());
        reconstruct(log.events())
    }

    #[test]
    fn pairing() {
        let r = recon("{\"event\":\"phase.started\",\"phase\":4}\n");
        assert_eq!(r.phases[&4].state, Logged::Open);
        let r = recon(
            "{\"event\":\"phase.started\",\"phase\":4}\n{\"event\":\"phase.failed\",\"phase\":4}\n",
        );
        assert_eq!(r.phases[&4].state, Logged::Failed);
        let r = recon("{\"event\":\"phase.started\",\"phase\":4}\n{\"event\":\"phase.interrupted\",\"phase\":4}\n{\"event\":\"phase.started\",\"phase\":4}\n");
        assert_eq!(r.phases[&4].state, Logged::Open);
        let r = recon("{\"event\":\"phase.completed\",\"phase\":6}\n");
        assert_eq!(
            (r.phases[&6].state, r.warnings.len()),
            (Logged::Completed, 1)
        );
    }
}
