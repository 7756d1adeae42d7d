//! A run's status as one model, read once: the heartbeat, the stories, what is pending, the
//! escalations, the deferred-work ledger, the decision log's tail and the runs index. The human
//! dashboard, `--json` and the prompt are views of it (the reference's markdown keeps its own
//! renderer, quirks and all). Values are the artifacts' own, not Python-stringified; every source
//! says whether it was read (`ok`), missing (`absent`) or there but not usable (`unreadable`).
//! It reads and never writes.

use crate::decision_log::DECISION_LOG_FILE;
use crate::decisions::DECISIONS_FILE;
use crate::escalations::{self, Found};
use crate::heartbeat::HEARTBEAT_FILE;
use crate::pending::{self, Artifacts, Pending, PendingInputs};
use crate::reds::REGISTRY_FILE;
use crate::reference_status::story_entries;
use crate::{ids, ledger, markers, runs};
use serde::Serialize;
use serde_json::Value as Json;
use std::path::Path;
use ucg_git::ArtifactSource;
use ucg_store::pyjson::{self, Object, Value};

pub(crate) const SCHEMA: &str = "git-ucg.status/1";

/// How many non-blank decision-log lines the tail keeps (the reference's figure).
const LOG_TAIL_LINES: usize = 12;

/// What became of reading one artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceState {
    Ok,
    Absent,
    /// Present, but not what it must be: a directory, not UTF-8, empty, or not parseable.
    Unreadable,
}

/// Where the status is read from.
pub struct StatusInputs<'a> {
    pub source: &'a ArtifactSource<'a>,
    pub project_root: &'a Path,
    pub impl_dir: &'a Path,
    /// The run folder whose decision log is tailed (none: no tail).
    pub run_dir: Option<&'a Path>,
    pub runs_root: &'a Path,
    pub deferred_work: &'a Path,
    /// For the heartbeat's age.
    pub now: jiff::Timestamp,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub schema: &'static str,
    /// The revision the artifacts were read from; `null` for the work tree.
    pub rev: Option<String>,
    pub paths: ReadPaths,
    pub sources: Sources,
    /// The heartbeat's run; `null` when there is no usable heartbeat.
    pub run: Option<Run>,
    pub stories: Vec<Story>,
    pub pending: PendingView,
    pub escalations: Vec<Escalation>,
    /// The ledger's rows, open ones first (then file order), every column as written.
    pub deferred_work: Vec<ledger::Row>,
    pub decision_log: DecisionLogTail,
    pub runs: Vec<RunFolder>,
    /// Where a resume re-enters, with why: the same route `resume` and resolve's hand-back give
    /// (`null` when the epic's verdicts were not read, as with `--fast`).
    pub resume: Option<crate::resume::Route>,
    /// Commits that went past the gate since the run stopped (bypass records; empty for
    /// `--rev`).
    pub bypasses: Vec<crate::bypass::Bypass>,
}

#[derive(Debug, Serialize)]
pub struct ReadPaths {
    pub impl_artifacts: String,
    pub heartbeat: String,
    pub registry: String,
    pub decisions: String,
    pub deferred_work: String,
    pub run_dir: Option<String>,
    pub runs_root: String,
}

#[derive(Debug, Serialize)]
pub struct Sources {
    pub heartbeat: SourceState,
    pub registry: SourceState,
    pub decisions: SourceState,
    pub deferred_work: SourceState,
    pub decision_log: SourceState,
}

/// The heartbeat's header fields, raw (`null` when the key is missing).
#[derive(Debug, Serialize)]
pub struct Run {
    pub epic: Json,
    pub story: Json,
    pub index: Json,
    pub total: Json,
    /// The current story's phase, from its `stories[]` entry.
    pub phase: Json,
    pub last_verdict: Json,
    pub last_reasons: Vec<Json>,
    pub reloop_count: Json,
    pub budget: Budget,
    /// A close of the current story's escalation is on record: the run's `escalated` phase is
    /// answered, waiting for the resume.
    pub escalation_answered: bool,
    pub profile: Json,
    pub updated: Json,
    /// Seconds from `updated` to now, when `updated` is a timestamp.
    pub age_seconds: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct Budget {
    pub turns: Json,
    pub max_turns: Json,
    /// The close of the story's budget-overrun escalation deleted its turn counter: the figures
    /// above are where the run stopped, and the resumed story counts from zero.
    pub reset_by_close: bool,
}

impl Budget {
    /// `(used, ceiling)` when both are numbers.
    pub fn numbers(&self) -> Option<(f64, f64)> {
        Some((self.turns.as_f64()?, self.max_turns.as_f64()?))
    }
}

/// One `stories[]` entry of the heartbeat, with its markers and (unless `--fast`) its range.
#[derive(Debug, Default, Serialize)]
pub struct Story {
    pub story: Json,
    pub phase: Json,
    pub verdict: Json,
    pub dev_attempts: Json,
    pub reloop_count: Json,
    /// The sha in `.baseline-<story>` (the tolerant reader's 7–40 hex token).
    pub baseline: Option<String>,
    /// The sha in `.commit-<story>`.
    pub end: Option<String>,
    /// Filled from git unless `--fast`; `null` when not computed or not computable.
    pub commits: Option<usize>,
    pub files_changed: Option<usize>,
    pub insertions: Option<u64>,
    pub deletions: Option<u64>,
    pub problems: Vec<String>,
}

impl Story {
    /// The story id as text, when it has one.
    pub fn id(&self) -> Option<String> {
        match &self.story {
            Json::Null => None,
            Json::String(s) if s.is_empty() => None,
            Json::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct PendingView {
    pub counts: PendingCounts,
    #[serde(flatten)]
    pub pending: Pending,
}

#[derive(Debug, Default, Serialize, PartialEq, Eq)]
pub struct PendingCounts {
    pub red: usize,
    pub escalation: usize,
    pub decision: usize,
}

impl PendingCounts {
    pub fn of(pending: &Pending) -> PendingCounts {
        let count = |source| pending.items.iter().filter(|i| i.source == source).count();
        PendingCounts {
            red: count(pending::Source::Red),
            escalation: count(pending::Source::Escalation),
            decision: count(pending::Source::Decision),
        }
    }

    pub fn total(&self) -> usize {
        self.red + self.escalation + self.decision
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EscalationState {
    Typed,
    Unpromoted,
    Unreadable,
    /// A raw marker whose promoted escalation was closed: the residual the close leaves on
    /// purpose, pending nothing.
    Closed,
}

#[derive(Debug, Serialize)]
pub struct Escalation {
    pub story: String,
    pub state: EscalationState,
    pub file: String,
    /// The pending-decision id, for a typed record whose fields are strings.
    pub id: Option<String>,
    pub kind: Json,
    pub source: Json,
    pub decision_needed: Json,
    pub evidence: Json,
}

#[derive(Debug, Serialize)]
pub struct DecisionLogTail {
    pub run: Option<String>,
    pub lines: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct RunFolder {
    pub name: String,
    /// `live`, or `terminal` once it holds a `run-report.md`.
    pub state: &'static str,
    pub epic: Option<String>,
    /// Whether it is the run whose decision log this status tails.
    pub current: bool,
}

/// A pyjson value as a serde_json value: integers beyond 64 bits become floats, and NaN and
/// the infinities (which JSON cannot carry) become `null`.
pub fn to_json(value: &Value) -> Json {
    match value {
        Value::Null => Json::Null,
        Value::Bool(b) => Json::Bool(*b),
        Value::Int(digits) => digits
            .parse::<i64>()
            .map(Json::from)
            .or_else(|_| digits.parse::<u64>().map(Json::from))
            .unwrap_or_else(|_| {
                digits
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map_or(Json::Null, Json::Number)
            }),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Value::Str(s) => Json::String(s.clone()),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Object(object) => Json::Object(
            object
                .iter()
                .map(|(k, v)| (k.clone(), to_json(v)))
                .collect(),
        ),
    }
}

fn display(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Reads everything; never fails (what cannot be read is `absent`/`unreadable` and left out).
pub fn gather(inputs: &StatusInputs, rev: Option<&str>) -> Report {
    let source = inputs.source;
    let present = |bytes: &Option<Vec<u8>>, path: &Path| match bytes {
        Some(_) => SourceState::Ok,
        None if source.exists(path) => SourceState::Unreadable,
        None => SourceState::Absent,
    };
    let read = |path: &Path| {
        let bytes = source.read(path);
        (present(&bytes, path), bytes)
    };

    let heartbeat_path = inputs.impl_dir.join(HEARTBEAT_FILE);
    let (mut heartbeat_state, heartbeat_bytes) = read(&heartbeat_path);
    // Not UTF-8, not JSON, or not an object: there, but unreadable.
    let heartbeat = heartbeat_bytes.as_deref().and_then(pyjson::object_in);
    if heartbeat_state == SourceState::Ok && heartbeat.is_none() {
        heartbeat_state = SourceState::Unreadable;
    }

    let pending_inputs = PendingInputs {
        project_root: inputs.project_root,
        impl_dir: inputs.impl_dir,
        ledger: inputs.deferred_work,
    };
    let (artifacts, ledger_utf8) = Artifacts::read(&pending_inputs, source);

    // Each source parsed once: the enumeration parses the registry (a corrupt one is its
    // blocker), and the answers parsed here for their state are the ones laid over it.
    let mut found = pending::enumerate_unanswered(&pending_inputs, &artifacts);
    let registry_path = inputs.impl_dir.join(REGISTRY_FILE);
    // A file that is there but does not parse is unreadable.
    let parsed = |bytes, path, corrupt: bool| match present(bytes, path) {
        SourceState::Ok if corrupt => SourceState::Unreadable,
        state => state,
    };
    let registry_state = parsed(&artifacts.registry, &registry_path, found.registry_corrupt);
    let decisions_path = inputs.impl_dir.join(DECISIONS_FILE);
    let (answers, _, corrupt) = pending::recorded(
        &pending_inputs,
        artifacts.decisions.as_deref(),
        &found,
        false,
    );
    let decisions_state = parsed(&artifacts.decisions, &decisions_path, corrupt.is_some());
    found.blockers.extend(corrupt);
    let deferred_state = match ledger_utf8 {
        Some(true) => SourceState::Ok,
        Some(false) => SourceState::Unreadable,
        None => present(&None, inputs.deferred_work),
    };
    let closed_markers = pending::markers_closed(&answers);
    let escalations = escalations_of(
        &artifacts,
        inputs.impl_dir,
        inputs.project_root,
        &closed_markers,
    );
    let mut run = heartbeat.as_ref().map(|hb| run_of(hb, inputs.now));
    if let Some(run) = run.as_mut() {
        if let Some(story) = run.story.as_str() {
            let marker = crate::budget::marker_file(story);
            run.escalation_answered = closed_markers.contains(marker.as_str());
            let counter = inputs.impl_dir.join(crate::budget::counter_file(story));
            run.budget.reset_by_close = run.escalation_answered && !source.exists(&counter);
        }
    }
    let pending = pending::with_answers(found, &answers);
    let mut deferred_work = artifacts.ledger_rows;
    // Open rows first; the sort is stable, so file order holds within each group.
    deferred_work.sort_by_key(|row| row.get("status").map(String::as_str) != Some("open"));

    let log = inputs.run_dir.map(|run| read(&run.join(DECISION_LOG_FILE)));
    let (log_state, log_text) = match log {
        Some((state, bytes)) => match bytes.map(String::from_utf8) {
            Some(Ok(text)) => (state, Some(text)),
            Some(Err(_)) => (SourceState::Unreadable, None),
            None => (state, None),
        },
        None => (SourceState::Absent, None),
    };
    let decision_log = DecisionLogTail {
        run: inputs
            .run_dir
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned()),
        lines: log_text.as_deref().map(log_tail).unwrap_or_default(),
    };

    let heartbeat_idle = run.as_ref().and_then(|r| r.age_seconds);
    Report {
        schema: SCHEMA,
        rev: rev.map(str::to_string),
        paths: ReadPaths {
            impl_artifacts: display(inputs.impl_dir),
            heartbeat: display(&heartbeat_path),
            registry: display(&registry_path),
            decisions: display(&decisions_path),
            deferred_work: display(inputs.deferred_work),
            run_dir: inputs.run_dir.map(display),
            runs_root: display(inputs.runs_root),
        },
        sources: Sources {
            heartbeat: heartbeat_state,
            registry: registry_state,
            decisions: decisions_state,
            deferred_work: deferred_state,
            decision_log: log_state,
        },
        run,
        stories: heartbeat
            .as_ref()
            .map(|hb| stories_of(hb, source, inputs.impl_dir))
            .unwrap_or_default(),
        pending: PendingView {
            counts: PendingCounts::of(&pending),
            pending,
        },
        escalations,
        deferred_work,
        decision_log,
        runs: runs_of(source, inputs.runs_root, inputs.run_dir, heartbeat_idle),
        resume: None,
        bypasses: Vec::new(),
    }
}

fn raw(object: &Object, key: &str) -> Json {
    object.get(key).map_or(Json::Null, to_json)
}

fn run_of(heartbeat: &Object, now: jiff::Timestamp) -> Run {
    let story = heartbeat.get("story").filter(|v| v.is_truthy());
    let phase = story
        .and_then(|story| {
            story_entries(Some(heartbeat)).into_iter().find(|e| {
                e.get("story") == Some(story) && e.get("phase").is_some_and(Value::is_truthy)
            })
        })
        .map_or(Json::Null, |entry| raw(entry, "phase"));
    let budget = heartbeat.get("budget_used").and_then(Value::as_object);
    let updated = raw(heartbeat, "updated");
    let age_seconds = updated
        .as_str()
        .and_then(|text| text.parse::<jiff::Timestamp>().ok())
        .map(|then| now.as_second() - then.as_second());
    Run {
        epic: raw(heartbeat, "epic"),
        story: raw(heartbeat, "story"),
        index: raw(heartbeat, "index"),
        total: raw(heartbeat, "total"),
        phase,
        last_verdict: raw(heartbeat, "last_verdict"),
        last_reasons: heartbeat
            .get("last_reasons")
            .and_then(Value::as_array)
            .map(|reasons| reasons.iter().map(to_json).collect())
            .unwrap_or_default(),
        reloop_count: raw(heartbeat, "reloop_count"),
        budget: Budget {
            turns: budget.map_or(Json::Null, |b| raw(b, "turns")),
            max_turns: budget.map_or(Json::Null, |b| raw(b, "max_turns")),
            reset_by_close: false,
        },
        escalation_answered: false,
        profile: raw(heartbeat, "profile"),
        updated,
        age_seconds,
    }
}

fn stories_of(heartbeat: &Object, source: &ArtifactSource, impl_dir: &Path) -> Vec<Story> {
    let marker = |name: String| markers::read_sha(source, impl_dir, &name);
    story_entries(Some(heartbeat))
        .into_iter()
        .map(|entry| {
            let id = entry
                .get("story")
                .filter(|v| v.is_truthy())
                .map(pyjson::py_str);
            // A story id that cannot name a file names no marker.
            let usable = id
                .as_deref()
                .filter(|id| ucg_store::validate_story_id(id).is_ok());
            Story {
                story: raw(entry, "story"),
                phase: raw(entry, "phase"),
                verdict: raw(entry, "verdict"),
                dev_attempts: raw(entry, "dev_attempts"),
                reloop_count: raw(entry, "reloop_count"),
                baseline: usable.and_then(|id| marker(markers::baseline_file(id))),
                end: usable.and_then(|id| marker(markers::commit_file(id))),
                ..Default::default()
            }
        })
        .collect()
}

/// The escalation files as found; a raw marker whose escalation's close is on record is `closed`
/// (the residual the close leaves), as `pending` and the prompt see it.
fn escalations_of(
    artifacts: &Artifacts,
    impl_dir: &Path,
    root: &Path,
    closed_markers: &std::collections::HashSet<&str>,
) -> Vec<Escalation> {
    let relative = |name: &str| {
        let path = impl_dir.join(name);
        path.strip_prefix(root)
            .map_or_else(|_| display(&path), display)
    };
    escalations::collect(&artifacts.names, |name| {
        artifacts.sidecars.get(name).cloned()
    })
    .into_iter()
    .map(|(story, found)| {
        let file = relative(found.file());
        let (state, payload) = match found {
            Found::Typed { payload, .. } => (EscalationState::Typed, Some(payload)),
            Found::Unpromoted { file: name } if closed_markers.contains(name.as_str()) => {
                (EscalationState::Closed, None)
            }
            Found::Unpromoted { .. } => (EscalationState::Unpromoted, None),
            Found::Unreadable { .. } => (EscalationState::Unreadable, None),
        };
        let field = |key: &str| payload.as_ref().map_or(Json::Null, |p| raw(p, key));
        let text = |key: &str| payload.as_ref()?.get(key)?.as_str();
        let id = match (text("kind"), text("source"), text("decision_needed")) {
            (Some(kind), Some(origin), Some(needed)) => Some(ids::mint(kind, origin, needed)),
            _ => None,
        };
        Escalation {
            story,
            state,
            file,
            id,
            kind: field("kind"),
            source: field("source"),
            decision_needed: field("decision_needed"),
            evidence: field("evidence"),
        }
    })
    .collect()
}

/// The last non-blank lines of a decision log, right-trimmed, starting at a heading: the first
/// heading among the last [`LOG_TAIL_LINES`], else the last one before them — never in the
/// middle of a section or inside a code fence. A log without headings keeps the plain tail.
fn log_tail(text: &str) -> Vec<String> {
    let kept: Vec<&str> = ledger::py_splitlines(text)
        .into_iter()
        .filter(|l| !ids::py_strip(l).is_empty())
        .collect();
    // Which lines are inside fenced code (a fence line counts as inside), and the headings
    // outside it.
    let mut fenced = false;
    let inside: Vec<bool> = kept
        .iter()
        .map(|line| {
            let trimmed = line.trim_start();
            let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
            let was = fenced;
            fenced ^= fence;
            was || fence
        })
        .collect();
    let heading = |at: usize| !inside[at] && kept[at].starts_with('#');
    let plain = kept.len().saturating_sub(LOG_TAIL_LINES);
    // A section too long to show whole starts its tail at the first line outside code instead.
    let longest = 3 * LOG_TAIL_LINES;
    let start = (plain..kept.len())
        .find(|&at| heading(at))
        .or_else(|| {
            (0..plain)
                .rev()
                .find(|&at| heading(at))
                .filter(|&at| kept.len() - at <= longest)
        })
        .or_else(|| (plain..kept.len()).find(|&at| !inside[at]))
        .unwrap_or(plain);
    kept[start..]
        .iter()
        .map(|l| l.trim_end_matches(ids::is_python_space).to_string())
        .collect()
}

/// The run folders; the current one (`current`, the located run) is live while the heartbeat,
/// `heartbeat_idle` seconds old, says the agent works on it.
fn runs_of(
    source: &ArtifactSource,
    runs_root: &Path,
    current: Option<&Path>,
    heartbeat_idle: Option<i64>,
) -> Vec<RunFolder> {
    crate::decision_log::run_folders(source, runs_root)
        .into_iter()
        .map(|(name, terminal)| {
            let current = current.is_some_and(|c| c == runs_root.join(&name));
            RunFolder {
                state: runs::folder_state(terminal, heartbeat_idle.filter(|_| current)),
                epic: runs::epic_of_folder(&name).map(str::to_string),
                current,
                name,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_raw() {
        let value = pyjson::loads(
            r#"{"a": 7, "b": NaN, "c": 123456789012345678901234567890, "d": [1.5, "x", null]}"#,
        )
        .unwrap();
        assert_eq!(
            to_json(&value),
            serde_json::json!({"a": 7, "b": null, "c": 1.2345678901234568e29, "d": [1.5, "x", null]})
        );
    }

    #[test]
    fn the_tail_starts_at_a_heading_outside_code() {
        let text =
            "# Run\n\n## ucg-resolve 1\n- a\n```\n# not a heading\nx\ny\nz\nw\nv\nu\nt\n```\n- b\n";
        let tail = log_tail(text);
        assert_eq!(tail[0], "## ucg-resolve 1", "{tail:?}");
        let text = "## one\n- a\n## two\n- b\n";
        assert_eq!(log_tail(text), ["## one", "- a", "## two", "- b"]);
    }

    #[test]
    fn the_tail_keeps_the_last_non_blank_lines() {
        let text: String = (0..20).map(|i| format!("line {i}  \n\n")).collect();
        let tail = log_tail(&text);
        assert_eq!(tail.len(), LOG_TAIL_LINES);
        assert_eq!(tail[0], "line 8");
        assert_eq!(tail[11], "line 19");
    }
}
