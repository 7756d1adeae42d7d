//! The ledger and its index on disk (docs/formats/lesson.md B.1, B.3): `ledger.jsonl`, append-only,
//! one compact lesson per line, and `ledger.index.json`, rewritten whole. Every write happens
//! under an exclusive lock on the ledger's directory; lines are appended in one write after all of
//! them were validated; the index is checked before the ledger is touched and replaced atomically.

use super::entry::{self, LessonError};
use crate::store;
use serde_json::{json, Map, Value};
use std::io::Write;
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

/// The ledger's non-blank complete lines with their physical (1-based) numbers, and the number
/// of a torn last line (no newline: reported, never read as a lesson).
pub fn raw_lines(bytes: &[u8]) -> (Vec<(usize, &[u8])>, Option<usize>) {
    let mut lines: Vec<(usize, &[u8])> = bytes
        .split(|b| *b == b'\n')
        .enumerate()
        .map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
        .collect();
    // A last line without its newline is whole when it parses (a tool that omits the final
    // newline); otherwise a crash tore it.
    let mut torn = None;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        if let Some((number, tail)) = lines.last().copied() {
            if serde_json::from_slice::<serde::de::IgnoredAny>(tail).is_err() {
                torn = Some(number);
                lines.pop();
            }
        }
    }
    (lines, torn)
}

/// [`raw_lines`], each parsed.
pub fn lines(bytes: &[u8]) -> (Vec<Line<'_>>, Option<usize>) {
    let (lines, torn) = raw_lines(bytes);
    let out = lines
        .into_iter()
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
    for key in entry::index_keys(entry) {
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

/// What an append did: the ids written, the torn tail it removed first (its bytes), and a
/// warning when the lessons are in but the index could not be replaced.
pub struct Appended {
    pub ids: Vec<String>,
    pub truncated: Option<usize>,
    pub index_warning: Option<String>,
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
    store::create_dirs(dir).map_err(|e| {
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
    // The index git-ucg wrote last is mapped rather than read (a large one is scanned, not
    // copied); any other is read.
    let ours = super::index::is_ours(&paths.index);
    let mapped = match ours {
        true => map_index(&paths.index),
        false => store::read_optional(&paths.index)
            .map(|bytes| bytes.map(IndexBytes::Owned))
            .map_err(|e| std::io::Error::other(e.to_string())),
    }
    .map_err(|e| io("cannot read the index", e))?;
    let index_bytes: Option<&[u8]> = mapped.as_deref();
    let desync = |mut e: LessonError| {
        e.details = json!({
            "path": paths.index.to_string_lossy(),
            "fix": "git ucg lesson audit --fix",
        });
        e
    };
    // The index as git-ucg last wrote it takes a splice; anything else is parsed (and a corrupt
    // one refuses the append before the ledger is touched).
    let additions: Vec<(String, Value, Vec<String>)> = entries
        .iter()
        .map(|e| {
            (
                e.get("id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                e.get("created").cloned().unwrap_or(Value::Null),
                entry::index_keys(e),
            )
        })
        .collect();
    let empty = super::index::to_bytes(&Map::new());
    let (base, spliced): (&[u8], _) = match index_bytes {
        Some(bytes) if super::index::is_ours(&paths.index) => {
            (bytes, super::index::splice(bytes, &additions))
        }
        None => (&empty, super::index::splice(&empty, &additions)),
        Some(bytes) => (bytes, None),
    };
    let rebuilt = match &spliced {
        Some(_) => None,
        None => {
            let mut index = load_index(index_bytes).map_err(desync)?;
            for entry in entries {
                index_entry(&mut index, entry);
            }
            let canonical = super::index::is_canonical(&index);
            Some((super::index::to_bytes(&index), canonical))
        }
    };
    let mut bytes = Vec::new();
    for entry in entries {
        serde_json::to_writer(&mut bytes, entry)
            .map_err(|e| io("cannot serialize", std::io::Error::other(e)))?;
        bytes.push(b'\n');
    }
    // A torn last line that is a whole JSON value only lost its newline: it is ended, not cut.
    let whole = |tail: &[u8]| serde_json::from_slice::<serde::de::IgnoredAny>(tail).is_ok();
    let truncated =
        store::append_cutting_torn_tail(&paths.ledger, &bytes, whole).map_err(|(step, e)| {
            let what = match step {
                store::AppendStep::Open => "cannot open the ledger",
                store::AppendStep::CutTornTail => "cannot repair the ledger's torn tail",
                store::AppendStep::Write => "cannot append to the ledger",
                store::AppendStep::Sync => "cannot sync the ledger",
            };
            io(what, e)
        })?;
    // The index is derived from the ledger (synced above): replaced atomically, not synced —
    // `lesson audit --fix` rebuilds it should a power loss leave an older, empty or cut one.
    // The index is replaced after the lines are safe in the ledger: if that fails, the lesson is
    // still appended (and reported so); the index is left to `lesson audit --fix`.
    let written = match (&spliced, &rebuilt) {
        (Some(splice), _) => store::write_atomic_unsynced_with(lock, &paths.index, |out| {
            splice.write_to(base, out)?;
            super::index::record_file(&paths.index, out);
            Ok(())
        }),
        (None, Some((text, canonical))) => {
            store::write_atomic_unsynced_with(lock, &paths.index, |out| {
                out.write_all(text)?;
                // Only an index in the splice's layout is stamped for it.
                match canonical {
                    true => super::index::record_file(&paths.index, out),
                    false => super::index::forget(&paths.index),
                }
                Ok(())
            })
        }
        (None, None) => Ok(()),
    };
    let index_warning = written.err().map(|e| {
        super::index::forget(&paths.index);
        format!(
            "warning: {}: the lesson is appended but the index could not be replaced ({e}): \
run `git ucg lesson audit --fix`",
            paths.index.display()
        )
    });
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
        index_warning,
    })
}

/// The index file mapped into memory (`None` when absent; empty files are read, not mapped).
fn map_index(path: &Path) -> std::io::Result<Option<IndexBytes>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if file.metadata()?.len() == 0 {
        return Ok(Some(IndexBytes::Owned(Vec::new())));
    }
    // SAFETY: mapped only when the stamp says git-ucg wrote it last; git-ucg writes it only under
    // the ledger directory's lock, which the caller holds, and only by replacing the file (a swap
    // or a rename), never in place: the mapped file does not change while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(Some(IndexBytes::Mapped(map)))
}

enum IndexBytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl std::ops::Deref for IndexBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            IndexBytes::Mapped(map) => map,
            IndexBytes::Owned(bytes) => bytes,
        }
    }
}

/// The index rebuilt from the ledger's valid lessons (under the lock, synced): the way back from a
/// desynchronized or corrupt index.
pub fn rebuild_index(paths: &Paths) -> Result<usize, LessonError> {
    let lock = lock(paths)?;
    let bytes = store::read_optional(&paths.ledger)
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))?
        .unwrap_or_default();
    let (lines, _) = lines(&bytes);
    let mut index = Map::new();
    let mut count = 0;
    for line in lines {
        if let Ok(value) = line.parsed {
            if let Ok(entry) = entry::validate(&value) {
                index_entry(&mut index, entry);
                count += 1;
            }
        }
    }
    store::write_atomic(&lock, &paths.index, &super::index::to_bytes(&index))
        .map_err(|e| LessonError::new("E_IO", e.to_string(), Value::Null))?;
    super::index::record(&paths.index);
    Ok(count)
}
