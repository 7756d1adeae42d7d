//! What a stopped run waits on: the pending decisions from exactly three sources (PRODUCT.md §4),
//! each with its stable id. This is the one enumeration: status shows it, `pending` lists it,
//! `resolve` answers it, the hooks gate on it.
//!
//! 1. `.preflight-reds.json` `reds[]`: the id as stored (never re-derived); pending unless closed
//!    in `.decisions.json`. A corrupt registry is a blocker of its own.
//! 2. `escalation-<story>.json`: id = mint(kind, source, decision_needed) of its fields; pending
//!    while the sidecar exists. A raw `.escalation-<story>.md` without a sidecar is unpromoted: shown,
//!    not answerable until promoted — unless a close on record names it (the residual a close
//!    leaves on purpose).
//! 3. Deferred-work ledger rows with `source` `decision` and `status` `open`, in every table: id =
//!    mint("decision", the ledger's path relative to the project root, the row's reason).

use crate::pyjson::{self, Value};
use crate::store::ArtifactSource;
use crate::ucg::decisions::DECISIONS_FILE;
use crate::ucg::reds::{Registry, REGISTRY_FILE};
use crate::ucg::{escalations, ids, ledger};
use std::collections::HashMap;
use std::path::Path;

/// Which of the three sources an item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Red,
    Escalation,
    Decision,
}

/// One decision the run waits on.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PendingItem {
    pub id: String,
    pub source: Source,
    pub kind: String,
    /// The file it lives in, relative to the project root where possible.
    pub artifact: String,
    pub decision_needed: String,
    pub evidence: String,
    /// The answer on record in `.decisions.json`, if any (a `defer`, or a `close` not yet applied).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// What stops the enumeration from being complete.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Blocker {
    pub artifact: String,
    pub reason: String,
    pub way_out: String,
}

/// Everything pending, in the pass's order: REDs, escalations, ledger rows (file order within).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Pending {
    pub items: Vec<PendingItem>,
    /// Raw escalation markers without a typed sidecar: shown, not answerable yet.
    pub unpromoted: Vec<String>,
    /// Typed sidecars that cannot be read as the four-field object they must be.
    pub unreadable: Vec<String>,
    pub blockers: Vec<Blocker>,
}

/// Where the three sources are.
pub struct PendingInputs<'a> {
    pub project_root: &'a Path,
    pub impl_dir: &'a Path,
    pub ledger: &'a Path,
}

/// The three sources as read, each file once (status shows the same bytes it enumerates).
#[derive(Debug, Default)]
pub struct Artifacts {
    /// `.preflight-reds.json`.
    pub registry: Option<Vec<u8>>,
    /// `.decisions.json`.
    pub decisions: Option<Vec<u8>>,
    /// The artifact directory's entry names, sorted.
    pub names: Vec<String>,
    /// The readable escalation sidecars' bytes, by file name.
    pub sidecars: HashMap<String, Vec<u8>>,
    /// The ledger's rows (none when it is absent or not UTF-8).
    pub ledger_rows: Vec<ledger::Row>,
}

impl Artifacts {
    /// Reads what the enumeration needs through `source`; also reports the ledger's bytes were
    /// there (`Some(false)`: present but not UTF-8).
    pub fn read(inputs: &PendingInputs, source: &ArtifactSource) -> (Artifacts, Option<bool>) {
        let mut names = source.list(inputs.impl_dir);
        names.sort();
        let sidecars = names
            .iter()
            .filter(|name| escalations::sidecar_story(name).is_some())
            .filter_map(|name| Some((name.clone(), source.read(&inputs.impl_dir.join(name))?)))
            .collect();
        let ledger_text = source
            .read(inputs.ledger)
            .map(|bytes| String::from_utf8(bytes).ok());
        let ledger_ok = ledger_text.as_ref().map(Option::is_some);
        let artifacts = Artifacts {
            registry: source.read(&inputs.impl_dir.join(REGISTRY_FILE)),
            decisions: source.read(&inputs.impl_dir.join(DECISIONS_FILE)),
            names,
            sidecars,
            ledger_rows: ledger_text
                .flatten()
                .map(|text| ledger::rows(&text))
                .unwrap_or_default(),
        };
        (artifacts, ledger_ok)
    }
}

/// The recorded answers by id: (answer, action). Fail-open: an unreadable file records nothing.
fn recorded_answers(bytes: Option<&[u8]>) -> HashMap<String, (String, String)> {
    let Some(Value::Object(doc)) = bytes
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| pyjson::loads(t).ok())
    else {
        return HashMap::new();
    };
    let Some(entries) = doc.get("decisions").and_then(Value::as_array) else {
        return HashMap::new();
    };
    entries
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|e| {
            let id = e.get("id")?.as_str()?.to_string();
            let text = |k: &str| e.get(k).map(pyjson::py_str).unwrap_or_default();
            Some((id, (text("answer"), text("action"))))
        })
        .collect()
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Enumerates what is pending, reading through `source` (work tree or a commit's tree).
pub fn enumerate(inputs: &PendingInputs, source: &ArtifactSource) -> Pending {
    enumerate_read(inputs, &Artifacts::read(inputs, source).0)
}

/// Enumerates what is pending in artifacts already read.
pub fn enumerate_read(inputs: &PendingInputs, artifacts: &Artifacts) -> Pending {
    let mut pending = Pending::default();
    let answers = recorded_answers(artifacts.decisions.as_deref());
    let on_record = |id: &str| answers.get(id).cloned();
    let with_answer = |mut item: PendingItem| {
        if let Some((answer, action)) = on_record(&item.id) {
            item.answer = Some(answer);
            item.action = Some(action);
        }
        item
    };

    // 1. REDs, ids as stored.
    let registry_path = inputs.impl_dir.join(REGISTRY_FILE);
    let registry_name = relative(inputs.project_root, &registry_path);
    match Registry::parse(artifacts.registry.as_deref(), &registry_name) {
        Err(error) => pending.blockers.push(Blocker {
            artifact: registry_name.clone(),
            reason: error.to_string(),
            way_out: format!(
                "repair {registry_name} by hand, or move it aside and rerun the preflight scan to rebuild it"
            ),
        }),
        Ok(registry) => {
            for red in registry.reds.iter().filter_map(Value::as_object) {
                let text = |k: &str| red.get(k).map(pyjson::py_str).unwrap_or_default();
                let id = text("id");
                if id.is_empty() || on_record(&id).is_some_and(|(_, action)| action == "close") {
                    continue;
                }
                pending.items.push(with_answer(PendingItem {
                    id,
                    source: Source::Red,
                    kind: text("kind"),
                    artifact: registry_name.clone(),
                    decision_needed: text("decision_needed"),
                    evidence: text("evidence"),
                    answer: None,
                    action: None,
                }));
            }
        }
    }

    // 2. Escalations: typed sidecars, then raw markers without one.
    let names = &artifacts.names;
    let mut typed = Vec::new();
    for name in names {
        let Some(story) = escalations::sidecar_story(name) else {
            continue;
        };
        typed.push(story.to_string());
        let path = inputs.impl_dir.join(name);
        let artifact = relative(inputs.project_root, &path);
        let fields = artifacts
            .sidecars
            .get(name)
            .and_then(|bytes| escalations::sidecar_payload(bytes))
            .and_then(|o| {
                let field = |k: &str| o.get(k)?.as_str().map(str::to_string);
                Some((
                    field("kind")?,
                    field("source")?,
                    field("decision_needed")?,
                    field("evidence"),
                ))
            });
        let Some((kind, origin, decision_needed, evidence)) = fields else {
            pending.unreadable.push(artifact);
            continue;
        };
        pending.items.push(with_answer(PendingItem {
            id: ids::mint(&kind, &origin, &decision_needed),
            source: Source::Escalation,
            kind,
            artifact,
            decision_needed,
            evidence: evidence.unwrap_or_default(),
            answer: None,
            action: None,
        }));
    }
    // A marker whose promoted escalation was closed is the residual the close leaves on purpose:
    // the closed id's path (between the kind and the digest) names the marker.
    let closed_marker = |name: &str| {
        answers.iter().any(|(id, (_, action))| {
            action == "close"
                && id
                    .split_once(':')
                    .and_then(|(_, rest)| rest.rsplit_once(':'))
                    .is_some_and(|(path, _)| path.rsplit('/').next() == Some(name))
        })
    };
    for name in names {
        if let Some(story) = escalations::marker_story(name) {
            if !typed.iter().any(|t| t == story) && !closed_marker(name) {
                pending
                    .unpromoted
                    .push(relative(inputs.project_root, &inputs.impl_dir.join(name)));
            }
        }
    }

    // 3. Open decision rows of the deferred-work ledger, every table.
    let ledger_name = relative(inputs.project_root, inputs.ledger);
    for row in &artifacts.ledger_rows {
        let cell = |k: &str| row.get(k).cloned().unwrap_or_default();
        if cell("source") != "decision" || cell("status") != "open" {
            continue;
        }
        pending.items.push(with_answer(PendingItem {
            id: ids::mint("decision", &ledger_name, &cell("reason")),
            source: Source::Decision,
            kind: "decision".into(),
            artifact: ledger_name.clone(),
            decision_needed: cell("reason"),
            evidence: format!(
                "{} ({}, story {})",
                cell("id"),
                cell("severity"),
                cell("story")
            ),
            answer: None,
            action: None,
        }));
    }
    pending
}
