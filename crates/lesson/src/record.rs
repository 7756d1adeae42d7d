//! The writes of the lesson ledger (docs/formats/lesson.md B.4–B.8): appending validated lessons
//! (every line checked before any is written), invalidation markers, the retroactive lesson with
//! its Jaccard supersession, and the reactive reset loop with its contract edit checked by
//! re-parsing. Each returns the JSON line DG-Anvil's CLI prints, or its refusal; warnings for the
//! operator go to `warn`.

use super::entry::{self, invalid, LessonError};
use super::js::{self, JsObject, JsString, JsValue};
use super::ledger::{self, Paths};
use super::{contract, state};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Result<T> = std::result::Result<T, LessonError>;

/// What a command prints on success, or its refusal.
pub type Outcome = Result<JsValue>;

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
    /// Anvil's verify-result.json: the failure the reset acts on, and the evidence.
    pub verify_result: Option<&'a Path>,
    /// The Court's verdict (`{action, per_criterion}`): a `request-changes` with a gap.
    pub court_result: Option<&'a Path>,
    /// The criterion the lesson closes, when neither result names it.
    pub criterion: Option<&'a str>,
    /// The lesson's pattern words (none: the lesson has no `pattern`).
    pub pattern: &'a [String],
}

/// The bytes of `path`, or E_IO naming it.
fn read(path: &Path) -> Result<Vec<u8>> {
    ucg_store::read_file(path).map_err(|e| io_error("cannot read", path, e))
}

pub fn io_error(what: &str, path: &Path, e: impl std::fmt::Display) -> LessonError {
    LessonError::new(
        "E_IO",
        format!("{what} {}: {e}", path.display()),
        entry::details([("path", Some(JsValue::str(&path.to_string_lossy())))]),
    )
}

/// A file the reference could not read, as Node reports it: the errno's name as the code
/// (`ENOENT`, `EISDIR`…), its words, `details` null.
pub fn node_read_error(path: &Path, e: &std::io::Error) -> LessonError {
    let (code, words) = match e.raw_os_error() {
        Some(libc::ENOENT) => ("ENOENT", "no such file or directory"),
        Some(libc::EACCES) => ("EACCES", "permission denied"),
        Some(libc::EISDIR) => {
            return LessonError::new(
                "EISDIR",
                "EISDIR: illegal operation on a directory, read",
                JsValue::Null,
            )
        }
        Some(libc::ENOTDIR) => ("ENOTDIR", "not a directory"),
        Some(libc::ELOOP) => ("ELOOP", "too many symbolic links encountered"),
        Some(libc::ENAMETOOLONG) => ("ENAMETOOLONG", "name too long"),
        _ => return io_error("cannot read", path, e),
    };
    LessonError::new(
        code,
        format!("{code}: {words}, open '{}'", path.display()),
        JsValue::Null,
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

/// Validates every line of `bytes` (a JSONL of lessons) as the reference does and appends them
/// all, or none.
pub fn append(paths: &Paths, bytes: &[u8], warn: &mut dyn FnMut(String)) -> Outcome {
    // Every line is checked before any is written (the reference keeps the earlier lines of a
    // file whose later line fails).
    let mut entries = Vec::new();
    // The lines as the reference keeps them: split on `\r?\n`, the ones `trim` leaves empty
    // dropped; each with its physical (1-based) number.
    let lines = ledger::numbered_lines(bytes)
        .filter(|(_, line)| !JsString::from(js::decode(line).as_ref()).is_blank());
    for (number, line) in lines {
        let with_line = |mut e: LessonError| {
            e.details_mut().set("line", JsValue::Number(number as f64));
            e
        };
        let invalid_json = |why: String| {
            with_line(LessonError::new(
                "E_IO",
                format!("invalid JSON: {why}"),
                JsValue::Null,
            ))
        };
        // Bytes that are not UTF-8 are refused (the reference would store U+FFFD in their place).
        let text = std::str::from_utf8(line)
            .map_err(|e| invalid_json(format!("invalid unicode (the line is not UTF-8: {e})")))?;
        let value = js::parse(text).map_err(|e| invalid_json(e.to_string()))?;
        entries.push(entry::validate(&value).map_err(with_line)?.clone());
    }
    if entries.is_empty() {
        return Ok(ok_doc([("appended", JsValue::Array(Vec::new()))]));
    }
    let appended = ledger::append(paths, &entries)?;
    report_append(paths, &appended, warn);
    Ok(ok_doc([(
        "appended",
        JsValue::Array(appended.ids.iter().map(|id| JsValue::str(id)).collect()),
    )]))
}

/// A `json!` object as JavaScript holds it.
fn js_object(value: Value) -> JsObject {
    match JsValue::from(value) {
        JsValue::Object(object) => object,
        _ => JsObject::new(),
    }
}

/// `{"ok": true, …}`.
fn ok_doc<'a>(pairs: impl IntoIterator<Item = (&'a str, JsValue)>) -> JsValue {
    let mut doc = JsObject::new();
    doc.set("ok", JsValue::Bool(true));
    for (k, v) in pairs {
        doc.set(k, v);
    }
    JsValue::Object(doc)
}

/// The ledger's lines as the writers' look-ups read them (`split(/\r?\n/).filter(Boolean)`, each
/// `JSON.parse`d): the values that parse, in order. A torn last line is skipped with a warning.
fn parsed_lines(paths: &Paths, warn: &mut dyn FnMut(String)) -> Result<Option<Vec<JsValue>>> {
    let bytes = match ucg_store::read_if_present(&paths.ledger) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(e) => return Err(io_error("cannot read", &paths.ledger, e)),
    };
    let (lines, torn) = ledger::lines(&bytes);
    if let Some(line) = torn {
        warn(ledger::torn_warning(&paths.ledger, line));
    }
    Ok(Some(
        lines.into_iter().filter_map(|l| l.parsed.ok()).collect(),
    ))
}

/// The parts that are not empty, joined (`[a, b].filter(Boolean).join(separator)`).
fn join_nonempty(parts: [&str; 2], separator: &str) -> String {
    let parts: Vec<&str> = parts.into_iter().filter(|part| !part.is_empty()).collect();
    parts.join(separator)
}

pub fn invalidate(
    paths: &Paths,
    lesson_id: &str,
    reason: &str,
    warn: &mut dyn FnMut(String),
) -> Outcome {
    if lesson_id.is_empty() {
        return Err(invalid(
            "invalidate requires a lesson id",
            vec![("rule", Some(JsValue::str("missing_lesson_id")))],
        ));
    }
    if !["revert", "stale", "wrong"].contains(&reason) {
        return Err(invalid(
            "invalidate reason must be one of: revert, stale, wrong",
            vec![("received", Some(JsValue::str(reason)))],
        ));
    }
    let Some(lines) = parsed_lines(paths, warn)? else {
        return Err(invalid(
            "ledger file missing",
            vec![(
                "ledgerPath",
                Some(JsValue::str(&paths.ledger.to_string_lossy())),
            )],
        ));
    };
    let wanted = JsString::from(lesson_id);
    let found = lines
        .iter()
        .find(|e| e.truthy() && e.get("id").and_then(JsValue::as_js_str) == Some(&wanted));
    let Some(target) = found else {
        return Err(invalid(
            format!("lesson not found: {lesson_id}"),
            vec![("lessonId", Some(JsValue::str(lesson_id)))],
        ));
    };
    let marker_id = entry::new_id();
    let mut marker = js_object(json!({
        "anvil_ledger_entry_version": 1,
        "id": marker_id,
        "created": entry::today(),
        "invalidates": lesson_id,
        "invalidation_reason": reason,
        "contract_gap": format!("invalidation marker for {lesson_id}"),
        "evidence": format!("reason: {reason}"),
        "remediation": format!(
            "prior lesson {lesson_id} is invalidated ({reason}); future queries should skip it"
        ),
        "tags": ["invalidation", reason],
    }));
    if let Some(pattern @ JsValue::Array(_)) = target.get("pattern") {
        marker.set("pattern", pattern.clone());
    }
    let appended = ledger::append(paths, &[marker])?;
    report_append(paths, &appended, warn);
    Ok(ok_doc([
        ("invalidated", JsValue::str(lesson_id)),
        ("marker_id", JsValue::str(&marker_id)),
    ]))
}

/// A contract's text; one that is not UTF-8 is refused as DG-Anvil's loader refuses it.
fn contract_text(bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| {
        LessonError::new(
            "E_INVALID_CONTRACT",
            "contract is not UTF-8",
            entry::details([("rule", Some(JsValue::str("not_utf8")))]),
        )
    })
}

/// The supersession reason DG-Anvil writes.
const SUPERSEDES_REASON: &str =
    "retroactive lesson consolidates near-duplicate (Jaccard >= 0.7) prior lessons on same contract_gap";

/// `anvil ledger retroactive`: the contract loaded and validated as the reference's loader does,
/// its checks in its order, the lesson built as it builds it, near-duplicates superseded.
pub fn retro(
    paths: &Paths,
    contract_path: &Path,
    criterion: &str,
    gap_note: &str,
    patterns: Option<&str>,
    warn: &mut dyn FnMut(String),
) -> Outcome {
    let bytes =
        ucg_store::read_file(contract_path).map_err(|e| node_read_error(contract_path, &e))?;
    let text = contract_text(bytes)?;
    let contract = contract::load(&text)?;
    let intent = contract
        .get("source_intent")
        .and_then(JsValue::as_js_str)
        .cloned()
        .unwrap_or_default();
    let given: Vec<JsValue> = match patterns {
        Some(list) => list.split(',').map(JsValue::str).collect(),
        None => intent
            .to_lossy()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|t| !t.is_empty())
            .map(JsValue::str)
            .collect(),
    };
    let gap = JsString::from(gap_note);
    if gap.is_blank() {
        return Err(LessonError::new(
            "E_NULL_LESSON",
            "retroactive: confirmed_gap_note required and non-empty",
            entry::details([("field", Some(JsValue::str("confirmed_gap_note")))]),
        ));
    }
    if criterion.is_empty() {
        return Err(invalid(
            "retroactive: criterion_id required",
            vec![("rule", Some(JsValue::str("missing_criterion_id")))],
        ));
    }
    let criteria = match contract.get("criteria") {
        Some(JsValue::Array(items)) => items.as_slice(),
        _ => &[],
    };
    let wanted = JsString::from(criterion);
    let Some(found) = criteria
        .iter()
        .find(|c| c.get("id").and_then(JsValue::as_js_str) == Some(&wanted))
    else {
        return Err(invalid(
            "retroactive: criterion_id not found in contract",
            vec![
                ("rule", Some(JsValue::str("unknown_criterion_id"))),
                ("criterionId", Some(JsValue::str(criterion))),
            ],
        ));
    };
    if intent.is_blank() {
        return Err(LessonError::new(
            "E_NULL_LESSON",
            "retroactive: source_intent required",
            entry::details([("field", Some(JsValue::str("source_intent")))]),
        ));
    }
    let pattern = entry::normalize_patterns(&given);
    let mut tags = pattern.clone();
    for tag in ["shipped_gap", "post_hoc"] {
        if !tags.iter().any(|t| t == tag) {
            tags.push(tag.to_string());
        }
    }
    let gap = gap.trim();
    let mut evidence = JsString::from(format!(
        "retroactive: criterion {criterion} passed after post-ship fix (source_intent: "
    ));
    evidence.push_js(&intent.trim().slice_units(200));
    evidence.push_str(")");
    // Near-duplicates (Jaccard ≥ 0.7, inclusive) among the lines that parse and have a truthy
    // gap, most similar first, file order on ties, at most 3.
    let gap_tokens = entry::tokens(&gap);
    let mut similar: Vec<(f64, JsValue)> = Vec::new();
    for line in parsed_lines(paths, warn)?.unwrap_or_default() {
        // A `null` line, on which the reference throws, has no gap.
        let Some(old_gap) = line.get("contract_gap").filter(|g| g.truthy()) else {
            continue;
        };
        let s = entry::jaccard_tokens(&gap_tokens, &entry::value_tokens(Some(old_gap)));
        if s >= 0.7 {
            // `s.id`: undefined (written `null` in the list) when the line has none.
            similar.push((s, line.get("id").cloned().unwrap_or(JsValue::Null)));
        }
    }
    similar.sort_by(|a, b| b.0.total_cmp(&a.0));
    let id = entry::new_id();
    let mut lesson = JsObject::new();
    lesson.set("anvil_ledger_entry_version", JsValue::Number(1.0));
    lesson.set("id", JsValue::str(&id));
    lesson.set("created", JsValue::String(JsString::from(entry::today())));
    lesson.set("contract_gap", JsValue::String(gap));
    lesson.set("evidence", JsValue::String(evidence));
    lesson.set(
        "remediation",
        found.get("statement").cloned().unwrap_or(JsValue::Null),
    );
    let strings = |list: &[String]| JsValue::Array(list.iter().map(|t| JsValue::str(t)).collect());
    lesson.set("pattern", strings(&pattern));
    lesson.set("tags", strings(&tags));
    lesson.set("source_criterion_id", JsValue::str(criterion));
    if !similar.is_empty() {
        let ids: Vec<JsValue> = similar.into_iter().take(3).map(|(_, id)| id).collect();
        lesson.set("supersedes", JsValue::Array(ids));
        lesson.set("supersedes_reason", JsValue::str(SUPERSEDES_REASON));
    }
    let validated = entry::validate(&JsValue::Object(lesson))?.clone();
    let appended = ledger::append(paths, &[validated])?;
    report_append(paths, &appended, warn);
    let result = json!({"appended": true, "id": id, "ledgerPath": paths.ledger.to_string_lossy()});
    Ok(ok_doc([("lesson", result.into())]))
}

/// A refusal of the reset itself (the skill runs only on a failure, and never past an
/// escalation): `E_RESET_REFUSED`, DG-Anvil's code for it.
fn reset_refused(message: impl Into<String>, details: Value) -> LessonError {
    LessonError::new("E_RESET_REFUSED", message, details)
}

/// The id of the first of `criteria` (the criterion a reset closes).
fn first_id(criteria: &[&Value]) -> Option<String> {
    criteria.first()?["id"].as_str().map(str::to_string)
}

/// What a failed check gives the reset: the evidence, and the first failing criterion's id.
struct Failure {
    evidence: String,
    criterion: Option<String>,
}

fn read_json(path: &Path, code: &'static str, what: &str) -> Result<Value> {
    let bytes = read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        LessonError::new(
            code,
            format!("{what} is not JSON: {e}"),
            json!({"path": path.to_string_lossy()}),
        )
    })
}

/// The failure a verify-result.json reports: its failing criteria (`C1 substantive: <evidence>`
/// each). A result that is green (`allGreen: true`, or no criterion failing when it says
/// nothing) is no failure: the reset is refused, naming the file.
fn verify_failure(path: &Path) -> Result<Failure> {
    let doc = read_json(path, "E_VERIFY", "verify result")?;
    let failing: Vec<&Value> = doc["criteria"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|criterion| criterion["allGreen"] != true)
        .collect();
    let green = match &doc["allGreen"] {
        Value::Bool(all_green) => *all_green,
        _ => failing.is_empty(),
    };
    if green {
        return Err(reset_refused(
            format!(
                "reset: {} says allGreen: {}: nothing failed, so there is nothing to reset",
                path.display(),
                doc["allGreen"]
            ),
            json!({"path": path.to_string_lossy(), "allGreen": doc["allGreen"]}),
        ));
    }
    // Each failing criterion, `C1 substantive: <evidence>`.
    let mut evidence = Vec::new();
    for criterion in &failing {
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
        evidence.push(level.unwrap_or_else(|| format!("{id}: not green")));
    }
    // An invariant that is not `pass` keeps the result from being green: it is evidence too.
    for invariant in doc["invariants"].as_array().into_iter().flatten() {
        let status = invariant["status"].as_str().unwrap_or("?");
        if status == "pass" {
            continue;
        }
        let said = invariant["evidence"]
            .as_str()
            .or_else(|| invariant["warning"].as_str())
            .unwrap_or("");
        evidence.push(format!(
            "invariant {} {status}: {said}",
            invariant["invariant"].as_str().unwrap_or("?")
        ));
    }
    Ok(Failure {
        evidence: evidence.join("; "),
        criterion: first_id(&failing),
    })
}

/// The failure a Court verdict reports: `request-changes` (DG-Anvil's `validateVerdict` shape:
/// an action, `per_criterion` entries with an id and a status) with a gap — its `gap` text, or the
/// criteria it marks `fail` or `suspicious`. `merge` and `request-clarification` (an escalation,
/// not a reset) are refused, as is a request that names no gap.
fn court_failure(path: &Path) -> Result<Failure> {
    let doc = read_json(path, "E_INVALID_VERDICT", "Court verdict")?;
    let action = doc["action"].as_str().unwrap_or_default();
    if !["merge", "request-changes", "request-clarification"].contains(&action) {
        return Err(LessonError::new(
            "E_INVALID_VERDICT",
            format!("unknown verdict action: {}", doc["action"]),
            json!({"path": path.to_string_lossy(), "received": doc["action"]}),
        ));
    }
    let details = json!({"path": path.to_string_lossy(), "action": action});
    if action != "request-changes" {
        let why = match action {
            "merge" => "the Court merges: nothing to reset",
            _ => "a request for clarification is escalated, not reset",
        };
        return Err(reset_refused(
            format!("reset: {} says {action}: {why}", path.display()),
            details,
        ));
    }
    let flagged: Vec<&Value> = doc["per_criterion"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| matches!(c["status"].as_str(), Some("fail" | "suspicious")))
        .collect();
    let gap = doc["gap"].as_str().map(str::trim).unwrap_or_default();
    let named: Vec<String> = flagged
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c["id"].as_str().unwrap_or("?"),
                c["status"].as_str().unwrap_or("?")
            )
        })
        .collect();
    let evidence = join_nonempty([gap, &named.join("; ")], ": ");
    if evidence.is_empty() {
        return Err(reset_refused(
            format!(
                "reset: {} requests changes but names no gap (no gap text, no criterion failing)",
                path.display()
            ),
            details,
        ));
    }
    Ok(Failure {
        evidence,
        criterion: first_id(&flagged),
    })
}

/// The directory a file lives in, resolved, for locking (one lock per distinct directory).
fn dir_of(path: &Path) -> std::path::PathBuf {
    let dir = ucg_store::dir_of(path);
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

pub fn reset(paths: &Paths, request: &ResetRequest, warn: &mut dyn FnMut(String)) -> Outcome {
    // The state, the contract and the ledger may share a directory: each distinct one is locked
    // once, in path order (so concurrent resets cannot deadlock).
    ledger::dir(paths)?;
    let (state_dir, contract_dir, ledger_dir) = (
        dir_of(request.state),
        dir_of(request.contract),
        dir_of(&paths.ledger),
    );
    let dirs = BTreeSet::from([state_dir.clone(), contract_dir.clone(), ledger_dir.clone()]);
    let mut locks = BTreeMap::new();
    for dir in dirs {
        let lock = ucg_store::lock_dir(&dir)?;
        locks.insert(dir, lock);
    }
    let lock_of = |dir: &std::path::PathBuf| {
        locks.get(dir).ok_or_else(|| {
            LessonError::new("E_IO", "internal: a directory was not locked", Value::Null)
        })
    };
    let locks = Locks {
        state: lock_of(&state_dir)?,
        contract: lock_of(&contract_dir)?,
        ledger: lock_of(&ledger_dir)?,
    };
    // An interrupted reset of this state file is completed first; a retry of it appends nothing
    // more (the loop cap holds under faults).
    let intent_path = intent_path(request.state);
    let unreadable_intent = |why: String| {
        reset_refused(
            format!(
                "reset: {} (an interrupted reset's record) cannot be read: {why}; check the \
                 ledger, the contract and the state, then remove it",
                intent_path.display()
            ),
            json!({"intent": intent_path.to_string_lossy()}),
        )
    };
    if let Some(bytes) =
        ucg_store::read_if_present(&intent_path).map_err(|e| unreadable_intent(e.to_string()))?
    {
        let intent: Value =
            serde_json::from_slice(&bytes).map_err(|e| unreadable_intent(e.to_string()))?;
        if intent["git_ucg_reset_intent"] != 1 {
            return Err(unreadable_intent("not a reset's record".into()));
        }
        if intent["contract"].as_str() != request.contract.to_str() {
            return Err(reset_refused(
                format!(
                    "reset: an interrupted reset of task {} (contract {}) waits in {}: run it \
                     again with that contract to complete it",
                    intent["task"],
                    intent["contract"],
                    intent_path.display()
                ),
                json!({"intent": intent_path.to_string_lossy(), "task": intent["task"]}),
            ));
        }
        let done = finish_reset(paths, request, &intent, &locks, false, warn)?;
        warn(format!(
            "reset: completed the interrupted reset of task {} (lesson {})",
            intent["task"].as_str().unwrap_or("?"),
            intent["id"].as_str().unwrap_or("?")
        ));
        if intent["task"].as_str() == Some(request.task) {
            return Ok(done.into());
        }
    }
    let mut task_state = state::parse(&read(request.state)?)?;
    let task = state::task(&task_state, request.task)?;
    // An escalated task waits on its user: a reset would queue it again behind their back.
    if task.get("status").and_then(Value::as_str) == Some("escalated") {
        return Err(reset_refused(
            format!(
                "reset: task {} is escalated: it waits on its user (git ucg lesson escalated)",
                request.task
            ),
            json!({"task": request.task, "status": "escalated"}),
        ));
    }
    let (cap, count) = state::loop_numbers(task);
    let contract_text = contract_text(read(request.contract)?)?;
    contract::load(&contract_text)?;
    // The reset runs only on a failure: each result given must show one.
    let verified = request.verify_result.map(verify_failure).transpose()?;
    let judged = request.court_result.map(court_failure).transpose()?;
    let failure = verified.or(judged);
    if failure.is_none() && request.evidence.is_some() {
        warn(
            "reset: acting on --evidence alone (no --verify-result or --court-result given)".into(),
        );
    }
    let evidence = match (&request.evidence, &failure) {
        (Some(evidence), _) => evidence.to_string(),
        (None, Some(failure)) => failure.evidence.clone(),
        (None, None) => String::new(),
    };
    let criterion = request
        .criterion
        .map(str::to_string)
        .or_else(|| failure.and_then(|f| f.criterion));
    let id = entry::new_id();
    let mut lesson = json!({
        "anvil_ledger_entry_version": 1,
        "id": id,
        "created": entry::today(),
        "task_id": request.task,
        "contract_gap": request.gap,
        "evidence": evidence,
        "remediation": request.remediation,
    });
    if let Some(criterion) = &criterion {
        lesson["criterion_id"] = json!(criterion);
    }
    if !request.pattern.is_empty() {
        lesson["pattern"] = json!(request.pattern);
    }
    let escalate = |task_state: &mut Map<String, Value>| -> Result<()> {
        if let Some(task) = state::task_mut(task_state, request.task) {
            task.insert("status".into(), json!("escalated"));
        }
        let bytes = state::to_bytes(task_state);
        Ok(ucg_store::write_atomic(locks.state, request.state, &bytes)?)
    };
    let entry = JsValue::from(lesson.clone());
    if let Err(error) = entry::validate(&entry) {
        // A null lesson is no lesson: nothing is appended, the task escalates.
        if error.code == "E_NULL_LESSON" {
            escalate(&mut task_state)?;
        }
        return Err(error);
    }
    if count >= cap {
        escalate(&mut task_state)?;
        return Ok(
            json!({"appended": false, "id": null, "loop_count": count, "status": "escalated"})
                .into(),
        );
    }
    // Checked before anything is written: the contract edit must be possible.
    let edited = contract::add_counter_example(&contract_text, &id, request.remediation)?;
    // The three writes are recorded first, so that a failure or a kill between them is completed
    // by the next reset rather than left half done.
    let intent = json!({
        "git_ucg_reset_intent": 1,
        "task": request.task,
        "id": id,
        "lesson": lesson,
        "contract": request.contract.to_string_lossy(),
        "contract_before": contract_text,
        "contract_after": edited,
        "loop_count": count + 1,
    });
    fault("intent", Fault::Fail)?;
    let bytes = serde_json::to_vec(&intent).unwrap_or_default();
    ucg_store::write_atomic(locks.state, &intent_path, &bytes)?;
    fault("intent", Fault::Kill)?;
    Ok(finish_reset(paths, request, &intent, &locks, true, warn)?.into())
}

/// The directory locks a reset holds.
struct Locks<'l> {
    state: &'l ucg_store::DirLock,
    contract: &'l ucg_store::DirLock,
    ledger: &'l ucg_store::DirLock,
}

/// Where a reset records its three writes until they are done: beside the state file.
fn intent_path(state: &Path) -> std::path::PathBuf {
    let mut name = state.file_name().unwrap_or_default().to_os_string();
    name.push(".reset-intent");
    state.with_file_name(name)
}

/// The refusal of an interrupted reset's record that lacks `what`.
fn intent_lacks(request: &ResetRequest, what: &str) -> LessonError {
    reset_refused(
        format!("reset: the interrupted reset's record has no {what}"),
        json!({"intent": intent_path(request.state).to_string_lossy()}),
    )
}

/// The recorded reset `intent` carried out: the lesson appended, the contract edited, the task
/// counted — each only if not done yet (`fresh`: nothing is, the ledger need not be searched) —
/// then the record removed. The reset's `{appended, id, loop_count, status}`.
fn finish_reset(
    paths: &Paths,
    request: &ResetRequest,
    intent: &Value,
    locks: &Locks,
    fresh: bool,
    warn: &mut dyn FnMut(String),
) -> Result<Value> {
    let id = intent["id"]
        .as_str()
        .ok_or_else(|| intent_lacks(request, "id"))?;
    let task = intent["task"]
        .as_str()
        .ok_or_else(|| intent_lacks(request, "task"))?;
    let loop_count = intent["loop_count"]
        .as_i64()
        .ok_or_else(|| intent_lacks(request, "loop_count"))?;
    let wanted = JsString::from(id);
    let in_ledger = !fresh
        && parsed_lines(paths, warn)?
            .unwrap_or_default()
            .iter()
            .any(|line| line.get("id").and_then(JsValue::as_js_str) == Some(&wanted));
    let intent_file = intent_path(request.state);
    if !in_ledger {
        let lesson = JsValue::from(intent["lesson"].clone());
        let appended = entry::validate(&lesson).cloned().and_then(|validated| {
            fault("ledger", Fault::Fail)?;
            ledger::append_locked(paths, &[validated], locks.ledger)
        });
        match appended {
            Ok(appended) => report_append(paths, &appended, warn),
            // Nothing of this reset is written yet: its record goes too, and it is as if it
            // had not run.
            Err(error) if fresh => {
                let _ = ucg_store::remove_if_present(&intent_file);
                return Err(error);
            }
            Err(error) => return Err(error),
        }
        fault("ledger", Fault::Kill)?;
    }
    // From here the lesson is in the ledger: a failure leaves the record, and the next reset
    // completes what it says.
    let pending = |mut error: LessonError| {
        error.message.push_str(&format!(
            " (the lesson is appended; run the reset again to complete it, as {} records)",
            intent_file.display()
        ));
        error
    };
    finish_after_append(request, intent, locks, id, task, loop_count).map_err(pending)?;
    ucg_store::remove_if_present(&intent_file)
        .map_err(|e| io_error("cannot remove", &intent_file, e))?;
    Ok(json!({"appended": true, "id": id, "loop_count": loop_count, "status": "queued"}))
}

/// The contract edited and the task counted, as `intent` records, each only if not done yet.
fn finish_after_append(
    request: &ResetRequest,
    intent: &Value,
    locks: &Locks,
    id: &str,
    task: &str,
    loop_count: i64,
) -> Result<()> {
    let (before, after) = (
        intent["contract_before"]
            .as_str()
            .ok_or_else(|| intent_lacks(request, "contract"))?,
        intent["contract_after"]
            .as_str()
            .ok_or_else(|| intent_lacks(request, "contract"))?,
    );
    let current = contract_text(read(request.contract)?)?;
    if current != after {
        if current != before {
            return Err(reset_refused(
                format!(
                    "reset: {} changed since the interrupted reset of task {task}: add \
                     {id} to its counter_examples by hand, then remove {}",
                    request.contract.display(),
                    intent_path(request.state).display()
                ),
                json!({"contract": request.contract.to_string_lossy(), "id": id}),
            ));
        }
        fault("contract", Fault::Fail)?;
        ucg_store::write_atomic(locks.contract, request.contract, after.as_bytes())?;
        fault("contract", Fault::Kill)?;
    }
    let mut task_state = state::parse(&read(request.state)?)?;
    let counted = state::task(&task_state, task)
        .is_ok_and(|t| t.get("last_lesson_id").and_then(Value::as_str) == Some(id));
    if !counted {
        if let Some(entry) = state::task_mut(&mut task_state, task) {
            entry.insert("loop_count".into(), json!(loop_count));
            entry.insert("last_lesson_id".into(), json!(id));
            entry.insert("status".into(), json!("queued"));
        }
        fault("state", Fault::Fail)?;
        ucg_store::write_atomic(locks.state, request.state, &state::to_bytes(&task_state))?;
        fault("state", Fault::Kill)?;
    }
    Ok(())
}

/// How a fault injected for the tests shows.
#[derive(PartialEq)]
enum Fault {
    /// The write fails (`E_IO`) instead of being made.
    Fail,
    /// The process is killed (SIGKILL) right after the write.
    Kill,
}

/// A fault the tests inject into a reset's writes (`GIT_UCG_FAULT=reset:<step>:<fail|kill>`,
/// the step one of intent, ledger, contract, state): the real writes, failing or killed at a
/// chosen point, which no file permission can do for a process run as root.
fn fault(step: &str, how: Fault) -> Result<()> {
    let Some(wanted) = std::env::var_os("GIT_UCG_FAULT") else {
        return Ok(());
    };
    let mode = match how {
        Fault::Fail => "fail",
        Fault::Kill => "kill",
    };
    if wanted.to_str() != Some(&format!("reset:{step}:{mode}")) {
        return Ok(());
    }
    if how == Fault::Kill {
        // SAFETY: kill(2) on this process's own id has no memory effects.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
    Err(LessonError::new(
        "E_IO",
        format!("reset: the {step} write failed (injected: GIT_UCG_FAULT)"),
        Value::Null,
    ))
}

/// An escalated task, as the escalation surface shows it: its loop count and cap, and its last
/// lesson (id, and the gap and remediation when the ledger holds it). Serialized as `lesson
/// escalated --json` lists it, in this order.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Escalated {
    pub task: String,
    pub loop_count: i64,
    pub loop_cap: i64,
    pub last_lesson_id: Option<String>,
    pub contract_gap: Option<String>,
    pub remediation: Option<String>,
}

/// What the human decides for an escalated task, as Anvil's core loop names it ("amend the
/// contract, amend the plan, or abort with a captured lesson").
pub const ESCALATION_OPTIONS: [&str; 3] = [
    "amend the contract",
    "amend the plan",
    "abort with a captured lesson (/abort)",
];

/// The escalated tasks of the state file `state_path`, in its order.
pub fn escalated(
    paths: &Paths,
    state_path: &Path,
    warn: &mut dyn FnMut(String),
) -> Result<Vec<Escalated>> {
    let task_state = state::parse(&read(state_path)?)?;
    let tasks = task_state.get("tasks").and_then(Value::as_object);
    let waiting: Vec<(&String, &Map<String, Value>)> = tasks
        .into_iter()
        .flatten()
        .filter_map(|(id, task)| Some((id, task.as_object()?)))
        .filter(|(_, task)| task.get("status").and_then(Value::as_str) == Some("escalated"))
        .collect();
    if waiting.is_empty() {
        return Ok(Vec::new());
    }
    let lessons = parsed_lines(paths, warn)?.unwrap_or_default();
    let text = |lesson: &JsValue, key: &str| {
        lesson
            .get(key)
            .and_then(JsValue::as_js_str)
            .map(|s| s.to_lossy().into_owned())
    };
    Ok(waiting
        .into_iter()
        .map(|(id, task)| {
            let (loop_cap, loop_count) = state::loop_numbers(task);
            let last = task
                .get("last_lesson_id")
                .and_then(Value::as_str)
                .map(str::to_string);
            let lesson = last.as_deref().and_then(|last| {
                let wanted = JsString::from(last);
                lessons
                    .iter()
                    .rev()
                    .find(|l| l.get("id").and_then(JsValue::as_js_str) == Some(&wanted))
            });
            Escalated {
                task: id.clone(),
                loop_count,
                loop_cap,
                last_lesson_id: last,
                contract_gap: lesson.and_then(|l| text(l, "contract_gap")),
                remediation: lesson.and_then(|l| text(l, "remediation")),
            }
        })
        .collect())
}
