//! `git ucg lesson`: DG-Anvil's lesson ledger (formats/sdlc-anvil.md part B) — the reference's
//! files, codes and outputs, with its hazards fixed (see `crate::lesson`). Successful commands
//! print one JSON line as DG-Anvil's CLI does (or, for `query` and `audit` without `--json`, a
//! table); refusals print `{"error", "code", "details"}` on stderr and exit 1.

use crate::cli::{LessonArgs, LessonCommand, LessonResetArgs};
use crate::context::Context;
use crate::error::Result;
use crate::lesson::entry::{self, LessonError};
use crate::lesson::ledger::{self, Paths};
use crate::lesson::{contract, state};
use crate::store;
use serde_json::{json, Map, Value};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::Path;

type Outcome = std::result::Result<Value, LessonError>;

pub fn run(_ctx: &Context, args: &LessonArgs) -> Result<u8> {
    let paths = ledger::paths(args.ledger.as_deref());
    let outcome = match &args.command {
        LessonCommand::Append { file } => append(&paths, file),
        LessonCommand::Query {
            pattern,
            limit,
            hide_superseded,
            json,
        } => return query(&paths, &pattern.join(" "), *limit, *hide_superseded, *json),
        LessonCommand::Audit { json, fix } => {
            if *fix {
                if let Err(error) = ledger::rebuild_index(&paths) {
                    eprintln!("{}", error.to_line());
                    return Ok(1);
                }
            }
            return audit(&paths, *json);
        }
        LessonCommand::Invalidate { lesson, reason } => invalidate(&paths, lesson, reason),
        LessonCommand::Retro {
            contract,
            criterion,
            gap_note,
            patterns,
        } => retro(&paths, contract, criterion, gap_note, patterns.as_deref()),
        LessonCommand::Reset(reset_args) => reset(&paths, reset_args),
    };
    match outcome {
        Ok(doc) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{doc}")?;
            Ok(0)
        }
        Err(error) => {
            eprintln!("{}", error.to_line());
            Ok(1)
        }
    }
}

fn io_error(what: &str, path: &Path, e: impl std::fmt::Display) -> LessonError {
    LessonError::new(
        "E_IO",
        format!("{what} {}: {e}", path.display()),
        json!({"path": path.to_string_lossy()}),
    )
}

/// The warnings an append leaves for the operator: an index left behind, then a torn tail cut.
fn report_append(paths: &Paths, appended: &ledger::Appended) {
    if let Some(warning) = &appended.index_warning {
        eprintln!("{warning}");
    }
    if let Some(bytes) = appended.truncated {
        eprintln!(
            "warning: {}: its last line was torn (no newline, {bytes} bytes): cut off before appending",
            paths.ledger.display()
        );
    }
}

fn append(paths: &Paths, file: &str) -> Outcome {
    let bytes = if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| io_error("cannot read", Path::new("-"), e))?;
        bytes
    } else {
        std::fs::read(file).map_err(|e| io_error("cannot read", Path::new(file), e))?
    };
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
    report_append(paths, &appended);
    Ok(json!({"ok": true, "appended": appended.ids}))
}

/// The ledger's lessons that parse, with a warning for each line that does not.
fn readable_lessons(paths: &Paths) -> std::result::Result<Vec<Map<String, Value>>, LessonError> {
    let bytes = match std::fs::read(&paths.ledger) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("cannot read", &paths.ledger, e)),
    };
    let (lines, torn) = ledger::lines(&bytes);
    if let Some(line) = torn {
        eprintln!(
            "warning: {}:{line}: torn last line (no newline), skipped",
            paths.ledger.display()
        );
    }
    let mut lessons = Vec::with_capacity(lines.len());
    for line in lines {
        match line.parsed {
            Ok(Value::Object(entry)) => lessons.push(entry),
            Ok(_) => eprintln!(
                "warning: {}:{}: not a JSON object, skipped",
                paths.ledger.display(),
                line.number
            ),
            Err(e) => eprintln!(
                "warning: {}:{}: malformed line skipped ({e})",
                paths.ledger.display(),
                line.number
            ),
        }
    }
    Ok(lessons)
}

fn id_of(entry: &Map<String, Value>) -> &str {
    entry.get("id").and_then(Value::as_str).unwrap_or("")
}

/// What `query` needs of a lesson, read without building the rest of it.
#[derive(serde::Deserialize)]
struct Light {
    #[serde(default)]
    id: Value,
    #[serde(default)]
    created: Value,
    #[serde(default)]
    pattern: Value,
    #[serde(default)]
    invalidates: Value,
    #[serde(default)]
    supersedes: Value,
}

/// A line's `Light`, when the line is a JSON object (serde would read an array as one too).
fn light(line: &[u8]) -> std::result::Result<Light, String> {
    if line.trim_ascii_start().first() != Some(&b'{') {
        return Err("not a JSON object".into());
    }
    serde_json::from_slice::<Light>(line).map_err(|e| e.to_string())
}

fn light_id(light: &Light) -> &str {
    light.id.as_str().unwrap_or("")
}

fn query(
    paths: &Paths,
    pattern: &str,
    limit: usize,
    hide_superseded: bool,
    as_json: bool,
) -> Result<u8> {
    let bytes = match std::fs::read(&paths.ledger) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            eprintln!("{}", io_error("cannot read", &paths.ledger, e).to_line());
            return Ok(1);
        }
    };
    // Only the fields the ranking needs are read, on every core; whole lessons are parsed for
    // the few that are printed.
    let (lines, torn) = ledger::raw_lines(&bytes);
    if let Some(line) = torn {
        eprintln!(
            "warning: {}:{line}: torn last line (no newline), skipped",
            paths.ledger.display()
        );
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = lines.len().div_ceil(workers).max(1);
    type Parsed<'b> = Vec<(usize, &'b [u8], std::result::Result<Light, String>)>;
    let parsed: Parsed = std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|(n, line)| (*n, *line, light(line)))
                        .collect::<Parsed>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut lessons: Vec<(&[u8], Light)> = Vec::with_capacity(parsed.len());
    for (number, line, light) in parsed {
        match light {
            Ok(light) => lessons.push((line, light)),
            Err(e) => eprintln!(
                "warning: {}:{number}: malformed line skipped ({e})",
                paths.ledger.display()
            ),
        }
    }
    let invalidated: HashSet<&str> = lessons
        .iter()
        .filter_map(|(_, l)| l.invalidates.as_str())
        .collect();
    let mut superseded_by: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for (_, lesson) in &lessons {
        for old in lesson
            .supersedes
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            superseded_by.entry(old).or_default().push(light_id(lesson));
        }
    }
    let wanted = entry::tokens(pattern);
    let mut scored: Vec<(usize, &[u8], &Light)> = lessons
        .iter()
        .filter(|(_, l)| l.invalidates.is_null() && !invalidated.contains(light_id(l)))
        .filter(|(_, l)| !(hide_superseded && superseded_by.contains_key(light_id(l))))
        .filter_map(|(line, l)| {
            let have = entry::value_tokens(&l.pattern);
            let score = wanted.iter().filter(|t| have.contains(*t)).count();
            (score > 0).then_some((score, *line, l))
        })
        .collect();
    let created = |l: &Light| l.created.as_str().unwrap_or("").to_string();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| created(b.2).cmp(&created(a.2))));
    scored.truncate(limit);
    let flagged: Vec<Value> = scored
        .iter()
        .filter_map(|(_, line, l)| {
            let mut lesson = match serde_json::from_slice::<Value>(line) {
                Ok(Value::Object(lesson)) => lesson,
                _ => return None,
            };
            if let Some(by) = superseded_by.get(light_id(l)) {
                lesson.insert("superseded_by".into(), by.clone().into());
            }
            Some(Value::Object(lesson))
        })
        .collect();
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{}", Value::Array(flagged))?;
        return Ok(0);
    }
    if flagged.is_empty() {
        writeln!(out, "no lesson matches {pattern:?}")?;
        return Ok(0);
    }
    for ((score, _, _), lesson) in scored.iter().zip(&flagged) {
        let text = |k: &str| lesson[k].as_str().unwrap_or("").to_string();
        let superseded = match lesson.get("superseded_by").and_then(Value::as_array) {
            Some(by) => format!(
                "  (superseded by {})",
                by.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => String::new(),
        };
        writeln!(
            out,
            "{}  {}  score {score}{superseded}",
            text("id"),
            text("created")
        )?;
        writeln!(out, "  gap:         {}", text("contract_gap"))?;
        writeln!(out, "  remediation: {}", text("remediation"))?;
    }
    Ok(0)
}

fn audit(paths: &Paths, as_json: bool) -> Result<u8> {
    let doc = audit_doc(paths);
    let ok = doc["ok"] == true;
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{doc}")?;
    } else {
        writeln!(
            out,
            "{}: {} lesson(s) checked, {}",
            paths.ledger.display(),
            doc["checked"]["lessons"],
            if ok {
                "no issues".to_string()
            } else {
                format!("{} issue(s)", doc["issues"].as_array().map_or(0, Vec::len))
            }
        )?;
        for issue in doc["issues"].as_array().into_iter().flatten() {
            let field = |k: &str| {
                issue
                    .get(k)
                    .map(|v| format!(" {k}={v}"))
                    .unwrap_or_default()
            };
            writeln!(
                out,
                "  {}{}{}{}",
                issue["issue"].as_str().unwrap_or(""),
                field("line"),
                field("id"),
                field("details")
            )?;
        }
    }
    Ok(u8::from(!ok))
}

/// `{ok, issues, checked: {lessons}}`: every line judged (a JSON `null` line too, which crashes the
/// reference), duplicate ids, the index checked both ways. Lines are physical, 1-based.
pub fn audit_doc(paths: &Paths) -> Value {
    let bytes = match std::fs::read(&paths.ledger) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return json!({"ok": true, "issues": [], "checked": {"lessons": 0}});
        }
        Err(e) => {
            return json!({"ok": false, "issues": [{"issue": "unreadable", "details": e.to_string()}], "checked": {"lessons": 0}});
        }
    };
    let (lines, torn) = ledger::lines(&bytes);
    let mut issues = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut checked = 0;
    for line in &lines {
        checked += 1;
        let value = match &line.parsed {
            Ok(value) => value,
            Err(_) => {
                issues.push(json!({"line": line.number, "issue": "invalid_json"}));
                continue;
            }
        };
        let id = value.get("id").and_then(Value::as_str).map(str::to_string);
        if let Err(e) = entry::validate(value) {
            issues.push(
                json!({"line": line.number, "id": id, "issue": e.code, "details": e.details}),
            );
        }
        if let Some(id) = id {
            if !seen.insert(id.clone()) {
                issues.push(json!({"line": line.number, "id": id, "issue": "duplicate_id"}));
            }
        }
    }
    if let Some(line) = torn {
        issues.push(json!({"line": line, "issue": "torn_line"}));
    }
    match std::fs::read(&paths.index) {
        Ok(index_bytes) => match ledger::load_index(Some(&index_bytes)) {
            Ok(index) => {
                let by_id = index.get("by_id").and_then(Value::as_object);
                for id in by_id.into_iter().flat_map(|m| m.keys()) {
                    if !seen.contains(id) {
                        issues.push(json!({"id": id, "issue": "index_desync_missing_entry"}));
                    }
                }
                let mut ids: Vec<&String> = seen.iter().collect();
                ids.sort();
                for id in ids {
                    if !by_id.is_some_and(|m| m.contains_key(id)) {
                        issues.push(json!({"id": id, "issue": "index_desync_missing_from_index"}));
                    }
                }
            }
            Err(_) => issues.push(json!({"issue": "index_invalid_json"})),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if !seen.is_empty() {
                issues.push(json!({"issue": "index_missing"}));
            }
        }
        Err(e) => issues.push(json!({"issue": "index_unreadable", "details": e.to_string()})),
    }
    json!({"ok": issues.is_empty(), "issues": issues, "checked": {"lessons": checked}})
}

fn invalidate(paths: &Paths, lesson_id: &str, reason: &str) -> Outcome {
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
    let lessons = readable_lessons(paths)?;
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
    report_append(paths, &appended);
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

fn retro(
    paths: &Paths,
    contract_path: &Path,
    criterion: &str,
    gap_note: &str,
    patterns: Option<&str>,
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
    let mut similar: Vec<(f64, String)> = readable_lessons(paths)?
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
    report_append(paths, &appended);
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

fn reset(paths: &Paths, args: &LessonResetArgs) -> Outcome {
    let lock_error =
        |e: crate::store::StoreError| LessonError::new("E_IO", e.to_string(), Value::Null);
    // The state, the contract and the ledger may share a directory: each distinct one is locked
    // once, in path order (so concurrent resets cannot deadlock).
    ledger::dir(paths)?;
    let (state_dir, contract_dir, ledger_dir) = (
        dir_of(&args.state),
        dir_of(&args.contract),
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
        std::fs::read(&args.state).map_err(|e| io_error("cannot read", &args.state, e))?;
    let mut task_state = state::parse(&state_bytes)?;
    let (cap, count) = state::loop_numbers(state::task(&task_state, &args.task)?);
    let (contract_text, contract_doc) = read_contract(&args.contract)?;
    contract::check_counter_examples(&contract_doc)?;
    let evidence = match (&args.evidence, &args.verify_result) {
        (Some(evidence), _) => evidence.clone(),
        (None, Some(path)) => failing_criteria(path)?,
        (None, None) => String::new(),
    };
    let id = entry::new_id();
    let mut entry = Map::new();
    for (key, value) in [
        ("anvil_ledger_entry_version", json!(1)),
        ("id", json!(id)),
        ("created", json!(entry::today())),
        ("task_id", json!(args.task)),
        ("contract_gap", json!(args.gap)),
        ("evidence", json!(evidence)),
        ("remediation", json!(args.remediation)),
    ] {
        entry.insert(key.into(), value);
    }
    if let Some(contract_id) = contract::str_at(&contract_doc, "id") {
        entry.insert("source_contract_id".into(), json!(contract_id));
    }
    let write_state = |task_state: &Map<String, Value>| -> std::result::Result<(), LessonError> {
        store::write_atomic(
            lock_of(&state_dir)?,
            &args.state,
            &state::to_bytes(task_state),
        )
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))
    };
    let escalate = |task_state: &mut Map<String, Value>| -> std::result::Result<(), LessonError> {
        if let Some(task) = state::task_mut(task_state, &args.task) {
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
    let edited = contract::add_counter_example(&contract_text, &id, &args.remediation)?;
    let appended = ledger::append_locked(paths, &[validated], lock_of(&ledger_dir)?)?;
    report_append(paths, &appended);
    store::write_atomic(lock_of(&contract_dir)?, &args.contract, edited.as_bytes())
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))?;
    let loop_count = count + 1;
    let status = "queued";
    if let Some(task) = state::task_mut(&mut task_state, &args.task) {
        task.insert("loop_count".into(), json!(loop_count));
        task.insert("last_lesson_id".into(), json!(id));
        task.insert("status".into(), json!(status));
    }
    write_state(&task_state)?;
    Ok(json!({"appended": true, "id": id, "loop_count": loop_count, "status": status}))
}
