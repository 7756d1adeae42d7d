//! The ledger and its index on disk (formats/sdlc-anvil.md B.1, B.3): `ledger.jsonl`, append-only,
//! one compact lesson per line, and `ledger.index.json`, rewritten whole. Every write happens
//! under an exclusive lock on the ledger's directory; lines are appended in one write after all of
//! them were validated; the index is checked before the ledger is touched and replaced atomically.

use super::lesson::{self, LessonError};
use crate::store;
use serde_json::{json, Map, Value};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

pub struct Paths {
    pub ledger: PathBuf,
    pub index: PathBuf,
}

/// `--ledger PATH`, else `$ANVIL_LEDGER`, else `~/.anvil/ledger.jsonl`; the index sits beside it
/// (`<name>.index.json` for `<name>.jsonl`).
pub fn paths(flag: Option<&Path>) -> Paths {
    let ledger = flag
        .map(Path::to_path_buf)
        .or_else(|| {
            std::env::var_os("ANVIL_LEDGER")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".anvil").join("ledger.jsonl")
        });
    let stem = ledger
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem.strip_suffix(".jsonl").unwrap_or(&stem).to_string();
    let index = ledger.with_file_name(format!("{stem}.index.json"));
    Paths { ledger, index }
}

/// One physical line of the ledger (1-based number), parsed or not.
pub struct Line<'a> {
    pub number: usize,
    pub bytes: &'a [u8],
    pub parsed: Result<Value, String>,
}

/// The ledger's non-blank lines; a last line without its newline is torn (reported, never read
/// as a lesson).
pub fn lines(bytes: &[u8]) -> (Vec<Line<'_>>, Option<usize>) {
    let complete = match bytes.iter().rposition(|b| *b == b'\n') {
        Some(end) => &bytes[..=end],
        None => &bytes[..0],
    };
    let torn = (complete.len() < bytes.len()).then(|| complete.split(|b| *b == b'\n').count());
    let out = complete
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
        .map(|(number, bytes)| Line {
            number,
            bytes,
            parsed: serde_json::from_slice::<Value>(bytes).map_err(|e| e.to_string()),
        })
        .collect();
    (out, torn)
}

/// The index, empty when absent; `E_INDEX_DESYNC` when it is not a JSON object.
pub fn load_index(bytes: Option<&[u8]>) -> Result<Map<String, Value>, LessonError> {
    let Some(bytes) = bytes else {
        return Ok(Map::new());
    };
    match serde_json::from_slice(bytes) {
        Ok(Value::Object(index)) => Ok(index),
        _ => Err(LessonError::new(
            "E_INDEX_DESYNC",
            "ledger index invalid JSON",
            json!({"path": "index"}),
        )),
    }
}

/// `updateIndex` (B.3) for one entry: `by_id[id] = {created}`, the id added once under each key.
pub fn index_entry(index: &mut Map<String, Value>, entry: &Map<String, Value>) {
    let id = entry
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let created = entry.get("created").cloned().unwrap_or(Value::Null);
    let by_pattern = section(index, "by_pattern");
    for key in lesson::index_keys(entry) {
        let ids = by_pattern
            .entry(key)
            .or_insert_with(|| Value::Array(Vec::new()));
        if !ids.is_array() {
            *ids = Value::Array(Vec::new());
        }
        if let Value::Array(ids) = ids {
            if !ids.iter().any(|v| v.as_str() == Some(&id)) {
                ids.push(Value::from(id.clone()));
            }
        }
    }
    section(index, "by_id").insert(id, json!({"created": created}));
}

/// The index's object under `name`, made an (empty) object if it is anything else.
fn section<'i>(index: &'i mut Map<String, Value>, name: &str) -> &'i mut Map<String, Value> {
    let slot = index
        .entry(name.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    match slot {
        Value::Object(map) => map,
        _ => unreachable!("made an object above"),
    }
}

/// What an append did: the ids written, and the torn tail it removed first (its bytes).
pub struct Appended {
    pub ids: Vec<String>,
    pub truncated: Option<usize>,
}

/// Appends validated lessons (their compact JSON, one line each) under the lock: the index is
/// read first and a corrupt one refuses everything; a torn last line left by a crash is cut off
/// (only the partial line); all lines go in one write, synced; then the index is replaced.
pub fn append(paths: &Paths, entries: &[Map<String, Value>]) -> Result<Appended, LessonError> {
    let lock = lock(paths)?;
    append_locked(paths, entries, &lock)
}

/// The ledger's directory (created if missing).
pub fn dir(paths: &Paths) -> Result<PathBuf, LessonError> {
    let dir = paths
        .ledger
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| {
        LessonError::new(
            "E_IO",
            format!("cannot create {}: {e}", dir.display()),
            Value::Null,
        )
    })?;
    Ok(dir.to_path_buf())
}

/// The writers' lock: the ledger directory's.
pub fn lock(paths: &Paths) -> Result<store::DirLock, LessonError> {
    store::lock_dir(&dir(paths)?).map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))
}

/// [`append`] for a caller that already holds the ledger directory's lock.
pub fn append_locked(
    paths: &Paths,
    entries: &[Map<String, Value>],
    lock: &store::DirLock,
) -> Result<Appended, LessonError> {
    let io = |what: &str, e: std::io::Error| {
        LessonError::new(
            "E_IO",
            format!("{what}: {e}"),
            json!({"path": paths.ledger.to_string_lossy()}),
        )
    };
    let index_bytes = store::read_optional(&paths.index)
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))?;
    let mut index = load_index(index_bytes.as_deref()).map_err(|mut e| {
        e.details = json!({"path": paths.index.to_string_lossy()});
        e
    })?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&paths.ledger)
        .map_err(|e| io("cannot open the ledger", e))?;
    let truncated =
        cut_torn_tail(&mut file).map_err(|e| io("cannot repair the ledger's torn tail", e))?;
    let mut bytes = Vec::new();
    for entry in entries {
        serde_json::to_writer(&mut bytes, entry)
            .map_err(|e| io("cannot serialize", std::io::Error::other(e)))?;
        bytes.push(b'\n');
        index_entry(&mut index, entry);
    }
    file.write_all(&bytes)
        .map_err(|e| io("cannot append to the ledger", e))?;
    file.sync_all()
        .map_err(|e| io("cannot sync the ledger", e))?;
    let index_text = serde_json::to_vec(&index).unwrap_or_default();
    store::write_atomic(lock, &paths.index, &index_text).map_err(|e| {
        LessonError::new(
            "E_INDEX_DESYNC",
            e.to_string(),
            json!({"path": paths.index.to_string_lossy()}),
        )
    })?;
    Ok(Appended {
        ids: entries
            .iter()
            .map(|e| {
                e.get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            })
            .collect(),
        truncated,
    })
}

/// Cuts a last line without its newline (a write torn by a crash) back to the last newline; the
/// bytes removed.
fn cut_torn_tail(file: &mut std::fs::File) -> std::io::Result<Option<usize>> {
    use std::io::{Read, SeekFrom};
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    // Look back for the last newline, a block at a time.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    loop {
        let start = end.saturating_sub(block.len() as u64);
        let chunk = &mut block[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(at) = chunk.iter().rposition(|b| *b == b'\n') {
            let keep = start + at as u64 + 1;
            if keep == len {
                return Ok(None);
            }
            file.set_len(keep)?;
            return Ok(Some((len - keep) as usize));
        }
        if start == 0 {
            file.set_len(0)?;
            return Ok(Some(len as usize));
        }
        end = start;
    }
}
