//! Work-item reconciliation (docs/formats/sdlc.md A.6.6): five sources of one work item, most
//! trusted first — the run's `events.jsonl`, the canonical `work-item-events.jsonl`, the run's
//! own `work-item-events.jsonl`, the canonical Markdown, the run's Markdown mirror. The ledgers are
//! never rewritten; the Markdown snapshots (and `meta.json.work_item.*`) are brought to the most
//! trusted value, a `work_item.reconciled` event is appended to the run's log and mirrored into the
//! work-item ledgers that exist, and each changed Markdown gets one `## History` row.
//!
//! How ledger events set fields is the source's prose made concrete (PROPOSAL, documented):
//! `work_item.created` and `work_item.reconciled` carry the fields in `data` (`status`,
//! `assignee`, `reporter`, `branch`, `external_ticket`, `source`, or `data.fields` by their
//! Markdown names), `work_item.transitioned` sets Status (`data.to`, else `data.status`, else
//! `data.state`), `work_item.assigned` sets Assignee (`data.assignee`, else `data.to`).

use super::events::{self, Event};
use super::layout::Layout;
use super::loaded::Loaded;
use super::markdown;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A work item's event ledger, canonical and per run.
const WORK_ITEM_LEDGER: &str = "work-item-events.jsonl";

/// The Markdown field names and the `data` keys that carry them.
const FIELD_KEYS: [(&str, &str); 6] = [
    ("Status", "status"),
    ("Assignee", "assignee"),
    ("Reporter", "reporter"),
    ("Branch", "branch"),
    ("External Ticket", "external_ticket"),
    ("Source Story/Task", "source"),
];

/// Where a source sits: the run's own log, the canonical store, or the run-local copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    RunLog,
    Canonical,
    RunLocal,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::RunLog => "run_log",
            Class::Canonical => "canonical",
            Class::RunLocal => "run_local",
        }
    }
}

pub struct Source {
    /// 1 is the most trusted.
    pub rank: u8,
    pub class: Class,
    pub path: PathBuf,
    /// Field → value, as this source has them.
    pub fields: Vec<(String, String)>,
    /// For the ledgers: their events (adapter receipts are read from them).
    pub events: Vec<Event>,
    /// For the Markdown files: their text.
    pub text: Option<String>,
}

impl Source {
    /// Its value of the field `name`, when it has one.
    fn field(&self, name: &str) -> Option<&String> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

fn data(event: &Event) -> Option<&Map<String, Value>> {
    event.raw.get("data").and_then(Value::as_object)
}

fn string_at(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// The fields one ledger event sets.
fn fields_of(event: &Event) -> Vec<(String, String)> {
    let Some(data) = data(event) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match event.event.as_str() {
        "work_item.created" | "work_item.reconciled" => {
            for (name, key) in FIELD_KEYS {
                if let Some(value) = string_at(data, &[key]) {
                    out.push((name.to_string(), value));
                }
            }
            let fields = data.get("fields").and_then(Value::as_object);
            for (name, value) in fields.into_iter().flatten() {
                let known = FIELD_KEYS.iter().any(|(n, _)| n == name);
                if let Some(value) = value.as_str().filter(|_| known) {
                    out.push((name.clone(), value.to_string()));
                }
            }
        }
        "work_item.transitioned" => {
            out.extend(
                string_at(data, &["to", "status", "state"]).map(|v| ("Status".to_string(), v)),
            );
        }
        "work_item.assigned" => {
            out.extend(string_at(data, &["assignee", "to"]).map(|v| ("Assignee".to_string(), v)));
        }
        _ => {}
    }
    out
}

/// The latest value of each field across a ledger's events.
fn ledger_fields(events: &[Event]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (name, value) in events.iter().flat_map(fields_of) {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => out.push((name, value)),
        }
    }
    out
}

/// The work item's id: the canonical Markdown's file stem (its ticket key or slug).
fn item_id(canonical: Option<&Path>) -> Option<String> {
    canonical?
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
}

fn event_item_id(event: &Event) -> Option<&str> {
    event
        .raw
        .get("work_item_id")
        .and_then(Value::as_str)
        .or_else(|| {
            data(event)
                .and_then(|d| d.get("work_item_id"))
                .and_then(Value::as_str)
        })
}

/// The paths the run names for its work item (`meta.work_item`, or the fixtures' top-level
/// `canonical_path`), resolved against the project root; the run-local defaults otherwise.
pub struct Paths {
    pub canonical_md: Option<PathBuf>,
    pub run_md: PathBuf,
    pub run_ledger: PathBuf,
    pub canonical_ledger: PathBuf,
}

pub fn paths(layout: &Layout, loaded: &Loaded) -> Paths {
    let meta = loaded.meta_or_empty();
    let work_item = meta.get("work_item").and_then(Value::as_object);
    let named = |key: &str| {
        work_item
            .and_then(|w| w.get(key))
            .or_else(|| (key == "canonical_path").then(|| meta.get(key)).flatten())
            .and_then(Value::as_str)
            .map(|p| layout.project_root.join(p))
    };
    Paths {
        canonical_md: named("canonical_path"),
        run_md: named("run_mirror").unwrap_or_else(|| loaded.dir.join("work-item.md")),
        run_ledger: named("event_ledger").unwrap_or_else(|| loaded.dir.join(WORK_ITEM_LEDGER)),
        canonical_ledger: layout.work_items.join(WORK_ITEM_LEDGER),
    }
}

pub fn sources(loaded: &Loaded, paths: &Paths) -> Vec<Source> {
    let run_id = loaded.run_id();
    let id = item_id(paths.canonical_md.as_deref());
    let mut out = Vec::new();
    let run_log: Vec<Event> = loaded
        .log
        .iter()
        .flat_map(|log| log.events())
        .filter(|e| e.event.starts_with("work_item."))
        .cloned()
        .collect();
    out.push(Source {
        rank: 1,
        class: Class::RunLog,
        path: loaded.dir.join(events::EVENTS_FILE),
        fields: ledger_fields(&run_log),
        events: run_log,
        text: None,
    });
    // The canonical ledger holds every run's work items: this run's lines, or this item's.
    let mine = |e: &Event| {
        e.raw.get("run_id").and_then(Value::as_str) == Some(run_id)
            || (id.is_some() && event_item_id(e) == id.as_deref())
    };
    for (rank, class, path, filter) in [
        (2, Class::Canonical, &paths.canonical_ledger, true),
        (3, Class::RunLocal, &paths.run_ledger, false),
    ] {
        let Ok(bytes) = ucg_store::read_file(path) else {
            continue;
        };
        let events: Vec<Event> = events::parse(&bytes)
            .events()
            .filter(|e| e.event.starts_with("work_item.") && (!filter || mine(e)))
            .cloned()
            .collect();
        out.push(Source {
            rank,
            class,
            path: path.clone(),
            fields: ledger_fields(&events),
            events,
            text: None,
        });
    }
    for (rank, class, path) in [
        (4, Class::Canonical, paths.canonical_md.clone()),
        (5, Class::RunLocal, Some(paths.run_md.clone())),
    ] {
        let Some(path) = path else { continue };
        let Ok(bytes) = ucg_store::read_file(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let fields = markdown::fields(&text)
            .into_iter()
            .filter(|(k, _, _)| FIELD_KEYS.iter().any(|(n, _)| n == k))
            .map(|(k, v, _)| (k, v))
            .collect();
        out.push(Source {
            rank,
            class,
            path,
            fields,
            events: Vec::new(),
            text: Some(text),
        });
    }
    out
}

/// One Markdown field brought to the most trusted value.
#[derive(Debug, Clone)]
pub struct FieldChange {
    pub field: String,
    pub from: Option<String>,
    pub to: String,
    /// The most trusted source that has the field: where it is, and its class.
    pub source: PathBuf,
    pub source_class: Class,
}

/// What reconciliation would do to one Markdown file.
pub struct MarkdownPlan {
    pub path: PathBuf,
    pub class: Class,
    pub text: String,
    pub changes: Vec<FieldChange>,
    /// Forward-synced adapter receipts: history rows to add, no confirmation needed.
    pub forward_rows: Vec<String>,
}

pub fn plan(sources: &[Source]) -> Vec<MarkdownPlan> {
    let receipts: Vec<&Event> = sources
        .iter()
        .flat_map(|s| &s.events)
        .filter(|e| e.event == "work_item.adapter_receipt")
        .collect();
    let mut plans = Vec::new();
    for target in sources.iter().filter(|s| s.text.is_some()) {
        let text = target.text.clone().unwrap_or_default();
        let mut changes = Vec::new();
        for (name, _) in FIELD_KEYS {
            let winner = sources
                .iter()
                .filter(|s| s.rank < target.rank)
                .find_map(|s| Some((s, s.field(name)?)));
            let Some((source, value)) = winner else {
                continue;
            };
            let current = target.field(name).cloned();
            if current.as_deref() != Some(value.as_str()) {
                changes.push(FieldChange {
                    field: name.to_string(),
                    from: current,
                    to: value.clone(),
                    source: source.path.clone(),
                    source_class: source.class,
                });
            }
        }
        let history = markdown::history(&text);
        let mut forward_rows = Vec::new();
        for receipt in &receipts {
            let Some(d) = data(receipt) else { continue };
            if d.get("status").and_then(Value::as_str) != Some("succeeded") {
                continue; // a failure stays as the Markdown records it
            }
            let (Some(id), Some(state)) = (
                string_at(d, &["work_item_id"]),
                string_at(d, &["state", "target_state"]),
            ) else {
                continue;
            };
            let row_for = |status: &str| format!("ticket-sync: {id} → {state} ({status})");
            let pending = history.iter().any(|h| h.ends_with(&row_for("pending")));
            let synced = history
                .iter()
                .chain(&forward_rows)
                .any(|h| h.ends_with(&row_for("succeeded")));
            if pending && !synced {
                let ts = receipt.ts.clone().unwrap_or_else(now);
                forward_rows.push(format!("{ts} {}", row_for("succeeded")));
            }
        }
        if !changes.is_empty() || !forward_rows.is_empty() {
            plans.push(MarkdownPlan {
                path: target.path.clone(),
                class: target.class,
                text,
                changes,
                forward_rows,
            });
        }
    }
    plans
}

pub fn now() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

pub fn rel(layout: &Layout, path: &Path) -> String {
    path.strip_prefix(&layout.project_root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The paths `meta.json.work_item` names that the most trusted ledger states otherwise
/// (`data.canonical_path`, `data.run_mirror`, `data.event_ledger` of `work_item.created` or
/// `work_item.reconciled`): (key, stored, wanted).
pub fn meta_changes(loaded: &Loaded, sources: &[Source]) -> Vec<(String, Value, String)> {
    let Some(work_item) = loaded
        .meta
        .as_ref()
        .and_then(|m| m.get("work_item"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in ["canonical_path", "run_mirror", "event_ledger"] {
        let wanted = sources.iter().filter(|s| s.text.is_none()).find_map(|s| {
            s.events
                .iter()
                .rev()
                .filter(|e| {
                    matches!(
                        e.event.as_str(),
                        "work_item.created" | "work_item.reconciled"
                    )
                })
                .find_map(|e| data(e).and_then(|d| string_at(d, &[key])))
        });
        let stored = work_item.get(key).cloned().unwrap_or(Value::Null);
        if let Some(wanted) = wanted.filter(|w| stored.as_str() != Some(w)) {
            out.push((key.to_string(), stored, wanted));
        }
    }
    out
}

pub fn classes(iter: impl Iterator<Item = Class>) -> String {
    let mut names: Vec<&str> = Vec::new();
    for class in iter {
        if !names.contains(&class.name()) {
            names.push(class.name());
        }
    }
    names.join("+")
}
