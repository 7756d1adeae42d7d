//! The writes of the lesson ledger (docs/formats/lesson.md B.4–B.8): appending validated lessons
//! (every line checked before any is written), invalidation markers, the retroactive lesson with
//! its Jaccard supersession, and the reactive reset loop with its contract edit checked by
//! re-parsing. Each returns the JSON line DG-Anvil's CLI prints, or its refusal; warnings for the
//! operator go to `warn`.

use super::entry::{self, LessonError};
use super::ledger::{self, Paths};
use super::{contract, state};
use crate::store;
use serde_json::{json, Map, Value};
use std::path::Path;

/// What a command prints on success, or its refusal.
pub type Outcome = std::result::Result<Value, LessonError>;

/// What `lesson reset` is given.
pub struct ResetRequest<'a> {
    /// The task's id in the state file.
    pub task: &'a str,
    /// Anvil's state file.
    pub state: &'a Path,
    /// The task's contract.
    pub contract: &'a Path,
    /// What the contract failed to constrain.
    pub gap: &'a str,
    /// What the failed check showed (default: the failing criteria of `verify_result`).
    pub evidence: Option<&'a str>,
    /// The counter-example the next attempt must honour.
    pub remediation: &'a str,
    /// Anvil's verify-result.json, for the evidence.
    pub verify_result: Option<&'a Path>,
}

pub fn io_error(what: &str, path: &Path, e: impl std::fmt::Display) -> LessonError {
    LessonError::new(
        "E_IO",
        format!("{what} {}: {e}", path.display()),
        json!({"path": path.to_string_lossy()}),
    )
}

/// The warnings an append leaves for the operator: an index left behind, then a torn tail cut.
fn report_append(paths: &Paths, appended: &ledger::Appended, warn: &mut dyn FnMut(String)) {
    if let Some(warning) = &appended.index_warning {
        warn(warning.clone());
    }
    if let Some(bytes) = appended.truncated {
        warn(format!(
            "warning: {}: its last line was torn (no newline, {bytes} bytes): cut off before appending",
            paths.ledger.display()
        ));
    }
}

/// Validates every line of `bytes` (a JSONL of lessons) and appends them all, or none.
pub fn append(paths: &Paths, bytes: &[u8], warn: &mut dyn FnMut(String)) -> Outcome {
    // Every line is checked before any is written (the reference keeps the earlier lines of a
    // file whose later line fails).
    let mut entries = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let with_line = |mut e: LessonError| {
            if let Value::Object(details) = &mut e.details {
                details.insert("line".into(), (i + 1).into());
            } else {
                e.details = json!({"line": i + 1});
            }
            e
        };
        let value: Value = serde_json::from_slice(line).map_err(|e| {
            with_line(LessonError::new(
                "E_IO",
                format!("invalid JSON: {e}"),
                Value::Null,
            ))
        })?;
        let entry = entry::validate(&value).map_err(with_line)?.clone();
        entries.push(entry);
    }
    let appended = ledger::append(paths, &entries)?;
    report_append(paths, &appended, warn);
    Ok(json!({"ok": true, "appended": appended.ids}))
}

/// The ledger's lessons that parse, with a warning for each line that does not.
pub fn readable_lessons(
    paths: &Paths,
    warn: &mut dyn FnMut(String),
) -> std::result::Result<Vec<Map<String, Value>>, LessonError> {
    let bytes = match store::read_if_present(&paths.ledger) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(io_error("cannot read", &paths.ledger, e)),
    };
    let (lines, torn) = ledger::lines(&bytes);
    if let Some(line) = torn {
        warn(format!(
            "warning: {}:{line}: torn last line (no newline), skipped",
            paths.ledger.display()
        ));
    }
    let mut lessons = Vec::with_capacity(lines.len());
    for line in lines {
        match line.parsed {
            Ok(Value::Object(entry)) => lessons.push(entry),
            Ok(_) => warn(format!(
                "warning: {}:{}: not a JSON object, skipped",
                paths.ledger.display(),
                line.number
            )),
            Err(e) => warn(format!(
                "warning: {}:{}: malformed line skipped ({e})",
                paths.ledger.display(),
                line.number
            )),
        }
    }
    Ok(lessons)
}

fn id_of(entry: &Map<String, Value>) -> &str {
    entry.get("id").and_then(Value::as_str).unwrap_or("")
}

pub fn invalidate(
    paths: &Paths,
    lesson_id: &str,
    reason: &str,
    warn: &mut dyn FnMut(String),
) -> Outcome {
    if lesson_id.is_empty() {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "lesson id is required",
            json!({"rule": "missing_lesson_id"}),
        ));
    }
    if !["revert", "stale", "wrong"].contains(&reason) {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "invalidation reason must be revert, stale or wrong",
            json!({"received": reason}),
        ));
    }
    if !paths.ledger.exists() {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "ledger does not exist",
            json!({"path": paths.ledger.to_string_lossy()}),
        ));
    }
    let lessons = readable_lessons(paths, warn)?;
    let Some(target) = lessons.iter().find(|l| id_of(l) == lesson_id) else {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "lesson not found",
            json!({"id": lesson_id}),
        ));
    };
    let marker_id = entry::new_id();
    let mut marker = Map::new();
    for (key, value) in [
        ("anvil_ledger_entry_version", json!(1)),
        ("id", json!(marker_id)),
        ("created", json!(entry::today())),
        ("invalidates", json!(lesson_id)),
        ("invalidation_reason", json!(reason)),
        (
            "contract_gap",
            json!(format!("invalidation marker for {lesson_id}")),
        ),
        ("evidence", json!(format!("reason: {reason}"))),
        (
            "remediation",
            json!(format!(
                "prior lesson {lesson_id} is invalidated ({reason}); future queries should skip it"
            )),
        ),
        ("tags", json!(["invalidation", reason])),
    ] {
        marker.insert(key.into(), value);
    }
    if let Some(pattern) = target.get("pattern").filter(|p| p.is_array()) {
        marker.insert("pattern".into(), pattern.clone());
    }
    let appended = ledger::append(paths, &[marker])?;
    report_append(paths, &appended, warn);
    Ok(json!({"ok": true, "invalidated": lesson_id, "marker_id": marker_id}))
}

fn read_contract(path: &Path) -> std::result::Result<(String, yaml_rust2::Yaml), LessonError> {
    let bytes = std::fs::read(path).map_err(|e| io_error("cannot read", path, e))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        LessonError::new(
            "E_INVALID_CONTRACT",
            "contract is not UTF-8",
            json!({"rule": "not_utf8"}),
        )
    })?;
    let doc = contract::parse(&text)?;
    Ok((text, doc))
}

/// The supersession reason DG-Anvil writes.
const SUPERSEDES_REASON: &str =
    "retroactive lesson consolidates near-duplicate (Jaccard >= 0.7) prior lessons on same contract_gap";

pub fn retro(
    paths: &Paths,
    contract_path: &Path,
    criterion: &str,
    gap_note: &str,
    patterns: Option<&str>,
    warn: &mut dyn FnMut(String),
) -> Outcome {
    let (_, doc) = read_contract(contract_path)?;
    contract::check_counter_examples(&doc)?;
    let Some(criteria) = doc["criteria"].as_vec() else {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "contract criteria must be an array",
            json!({"rule": "missing_contract"}),
        ));
    };
    if gap_note.trim().is_empty() {
        return Err(LessonError::new(
            "E_NULL_LESSON",
            "lesson field is empty: confirmed_gap_note",
            json!({"field": "confirmed_gap_note", "value": gap_note}),
        ));
    }
    if criterion.is_empty() {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "criterion id is required",
            json!({"rule": "missing_criterion_id"}),
        ));
    }
    let Some(found) = criteria
        .iter()
        .find(|c| c["id"].as_str() == Some(criterion))
    else {
        return Err(LessonError::new(
            "E_INVALID_LESSON",
            "unknown criterion id",
            json!({"rule": "unknown_criterion_id", "criterionId": criterion}),
        ));
    };
    let intent = contract::str_at(&doc, "source_intent").unwrap_or("");
    if intent.trim().is_empty() {
        return Err(LessonError::new(
            "E_NULL_LESSON",
            "lesson field is empty: source_intent",
            json!({"field": "source_intent", "value": intent}),
        ));
    }
    let given: Vec<String> = match patterns {
        Some(list) => list.split(',').map(str::to_string).collect(),
        None => intent
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_string)
            .collect(),
    };
    let pattern = entry::normalize_patterns(&given);
    let mut tags = pattern.clone();
    for tag in ["shipped_gap", "post_hoc"] {
        if !tags.iter().any(|t| t == tag) {
            tags.push(tag.to_string());
        }
    }
    let gap = gap_note.trim();
    let intent_short: String = intent.trim().chars().take(200).collect();
    let mut entry = Map::new();
    let id = entry::new_id();
    for (key, value) in [
        ("anvil_ledger_entry_version", json!(1)),
        ("id", json!(id)),
        ("created", json!(entry::today())),
        ("contract_gap", json!(gap)),
        ("evidence", json!(format!("retroactive: criterion {criterion} passed after post-ship fix (source_intent: {intent_short})"))),
        ("remediation", json!(found["statement"].as_str().unwrap_or(""))),
        ("pattern", json!(pattern)),
        ("tags", json!(tags)),
        ("source_criterion_id", json!(criterion)),
    ] {
        entry.insert(key.into(), value);
    }
    // Near-duplicates (Jaccard ≥ 0.7, inclusive), most similar first, file order on ties, at most 3.
    let mut similar: Vec<(f64, String)> = readable_lessons(paths, warn)?
        .iter()
        .filter_map(|l| {
            let old_gap = l
                .get("contract_gap")
                .and_then(Value::as_str)
                .filter(|g| !g.is_empty())?;
            let s = entry::jaccard(gap, old_gap);
            (s >= 0.7).then(|| (s, id_of(l).to_string()))
        })
        .collect();
    similar.sort_by(|a, b| b.0.total_cmp(&a.0));
    if !similar.is_empty() {
        let ids: Vec<String> = similar.into_iter().take(3).map(|(_, id)| id).collect();
        entry.insert("supersedes".into(), json!(ids));
        entry.insert("supersedes_reason".into(), json!(SUPERSEDES_REASON));
    }
    let validated = entry::validate(&Value::Object(entry.clone()))?.clone();
    let appended = ledger::append(paths, &[validated])?;
    report_append(paths, &appended, warn);
    Ok(
        json!({"ok": true, "lesson": {"appended": true, "id": id, "ledgerPath": paths.ledger.to_string_lossy()}}),
    )
}

/// The failing criteria of a verify-result.json: `C1 substantive: <evidence>` each.
fn failing_criteria(path: &Path) -> std::result::Result<String, LessonError> {
    let bytes = std::fs::read(path).map_err(|e| io_error("cannot read", path, e))?;
    let doc: Value = serde_json::from_slice(&bytes).map_err(|e| {
        LessonError::new(
            "E_VERIFY",
            format!("verify result is not JSON: {e}"),
            json!({"path": path.to_string_lossy()}),
        )
    })?;
    let mut failures = Vec::new();
    for criterion in doc["criteria"].as_array().into_iter().flatten() {
        if criterion["allGreen"] == true {
            continue;
        }
        let id = criterion["id"].as_str().unwrap_or("?");
        let level = ["exists", "substantive", "wired", "functional"]
            .into_iter()
            .find_map(|level| {
                let result = &criterion["levels"][level];
                (result["status"].as_str().is_some_and(|s| s != "pass")).then(|| {
                    format!(
                        "{id} {level}: {}",
                        result["evidence"].as_str().unwrap_or("")
                    )
                })
            });
        failures.push(level.unwrap_or_else(|| format!("{id}: not green")));
    }
    Ok(failures.join("; "))
}

/// The directory a file lives in, resolved, for locking (one lock per distinct directory).
fn dir_of(path: &Path) -> std::path::PathBuf {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

pub fn reset(paths: &Paths, request: &ResetRequest, warn: &mut dyn FnMut(String)) -> Outcome {
    let lock_error =
        |e: crate::store::StoreError| LessonError::new("E_IO", e.to_string(), Value::Null);
    // The state, the contract and the ledger may share a directory: each distinct one is locked
    // once, in path order (so concurrent resets cannot deadlock).
    ledger::dir(paths)?;
    let (state_dir, contract_dir, ledger_dir) = (
        dir_of(request.state),
        dir_of(request.contract),
        dir_of(&paths.ledger),
    );
    let mut dirs = vec![state_dir.clone(), contract_dir.clone(), ledger_dir.clone()];
    dirs.sort();
    dirs.dedup();
    let mut locks = Vec::new();
    for dir in &dirs {
        locks.push((dir.clone(), store::lock_dir(dir).map_err(lock_error)?));
    }
    let lock_of = |dir: &std::path::PathBuf| {
        locks
            .iter()
            .find(|(d, _)| d == dir)
            .map(|(_, lock)| lock)
            .ok_or_else(|| {
                LessonError::new("E_IO", "internal: a directory was not locked", Value::Null)
            })
    };
    let state_bytes =
        std::fs::read(request.state).map_err(|e| io_error("cannot read", request.state, e))?;
    let mut task_state = state::parse(&state_bytes)?;
    let (cap, count) = state::loop_numbers(state::task(&task_state, request.task)?);
    let (contract_text, contract_doc) = read_contract(request.contract)?;
    contract::check_counter_examples(&contract_doc)?;
    let evidence = match (&request.evidence, &request.verify_result) {
        (Some(evidence), _) => evidence.to_string(),
        (None, Some(path)) => failing_criteria(path)?,
        (None, None) => String::new(),
    };
    let id = entry::new_id();
    let mut entry = Map::new();
    for (key, value) in [
        ("anvil_ledger_entry_version", json!(1)),
        ("id", json!(id)),
        ("created", json!(entry::today())),
        ("task_id", json!(request.task)),
        ("contract_gap", json!(request.gap)),
        ("evidence", json!(evidence)),
        ("remediation", json!(request.remediation)),
    ] {
        entry.insert(key.into(), value);
    }
    if let Some(contract_id) = contract::str_at(&contract_doc, "id") {
        entry.insert("source_contract_id".into(), json!(contract_id));
    }
    let write_state = |task_state: &Map<String, Value>| -> std::result::Result<(), LessonError> {
        store::write_atomic(
            lock_of(&state_dir)?,
            request.state,
            &state::to_bytes(task_state),
        )
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))
    };
    let escalate = |task_state: &mut Map<String, Value>| -> std::result::Result<(), LessonError> {
        if let Some(task) = state::task_mut(task_state, request.task) {
            task.insert("status".into(), json!("escalated"));
        }
        write_state(task_state)
    };
    let validated = match entry::validate(&Value::Object(entry)) {
        Ok(validated) => validated.clone(),
        Err(error) => {
            // A null lesson is no lesson: nothing is appended, the task escalates.
            if error.code == "E_NULL_LESSON" {
                escalate(&mut task_state)?;
            }
            return Err(error);
        }
    };
    if count >= cap {
        escalate(&mut task_state)?;
        return Ok(
            json!({"appended": false, "id": null, "loop_count": count, "status": "escalated"}),
        );
    }
    // Checked before anything is written: the contract edit must be possible.
    let edited = contract::add_counter_example(&contract_text, &id, request.remediation)?;
    let appended = ledger::append_locked(paths, &[validated], lock_of(&ledger_dir)?)?;
    report_append(paths, &appended, warn);
    store::write_atomic(lock_of(&contract_dir)?, request.contract, edited.as_bytes())
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))?;
    let loop_count = count + 1;
    let status = "queued";
    if let Some(task) = state::task_mut(&mut task_state, request.task) {
        task.insert("loop_count".into(), json!(loop_count));
        task.insert("last_lesson_id".into(), json!(id));
        task.insert("status".into(), json!(status));
    }
    write_state(&task_state)?;
    Ok(json!({"appended": true, "id": id, "loop_count": loop_count, "status": status}))
}
