//! The ledger and its index on disk (docs/formats/lesson.md B.1, B.3): `ledger.jsonl`, append-only,
//! one compact lesson per line, and `ledger.index.json`, rewritten whole. Every write happens
//! under an exclusive lock on the ledger's directory; lines are appended in one write after all of
//! them were validated; the index is checked before the ledger is touched and replaced atomically.

use super::entry::{self, LessonError};
use super::js::{self, JsObject, JsString, JsValue};
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
pub struct Line {
    pub number: usize,
    pub parsed: Result<JsValue, js::ParseError>,
}

/// The lines of `bytes` split on `\r?\n`, each with its physical (1-based) number.
pub(crate) fn numbered_lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let lines = bytes.split(|b| *b == b'\n').enumerate();
    lines.map(|(i, line)| (i + 1, line.strip_suffix(b"\r").unwrap_or(line)))
}

/// The ledger's lines as `split(/\r?\n/).filter(Boolean)` keeps them, with their physical
/// (1-based) numbers, and the number of a torn last line: one without its newline that is neither
/// blank nor JSON (a crash cut it; reported, never read as a lesson).
pub fn raw_lines(bytes: &[u8]) -> (Vec<(usize, &[u8])>, Option<usize>) {
    let mut lines: Vec<(usize, &[u8])> = numbered_lines(bytes)
        .filter(|(_, line)| !line.is_empty())
        .collect();
    let mut torn = None;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        if let Some((number, tail)) = lines.last().copied() {
            // Torn by a crash: not blank, not JSON.
            let text = js::decode(tail);
            if !JsString::from(text.as_ref()).is_blank() && js::parse(&text).is_err() {
                torn = Some(number);
                lines.pop();
            }
        }
    }
    (lines, torn)
}

/// Whether an unterminated last line is whole (JSON) and only lost its newline.
pub(crate) fn is_whole(tail: &[u8]) -> bool {
    js::parse_bytes(tail).is_ok()
}

/// [`raw_lines`], each read as `JSON.parse` reads it.
pub fn lines(bytes: &[u8]) -> (Vec<Line>, Option<usize>) {
    let (lines, torn) = raw_lines(bytes);
    let out = lines
        .into_iter()
        .map(|(number, bytes)| Line {
            number,
            parsed: js::parse_bytes(bytes),
        })
        .collect();
    (out, torn)
}

/// The warning for the ledger's torn last line (numbered `line`), which the readers skip.
pub(crate) fn torn_warning(ledger: &Path, line: usize) -> String {
    let ledger = ledger.display();
    format!("warning: {ledger}:{line}: torn last line (no newline), skipped")
}

/// What the index file holds, for a writer: absent (or `null`), a document, or refused.
pub fn load_index(bytes: Option<&[u8]>) -> Result<JsObject, LessonError> {
    let Some(bytes) = bytes else {
        return Ok(JsObject::new());
    };
    match js::parse_bytes(bytes) {
        Ok(JsValue::Object(index)) => Ok(index),
        // `null` is no index yet (the reference crashes on it after appending).
        Ok(JsValue::Null) => Ok(JsObject::new()),
        Ok(other) => Err(LessonError::new(
            "E_INDEX_DESYNC",
            "ledger index is not a JSON object",
            entry::details([("received", Some(JsValue::str(entry::kind_of(&other))))]),
        )),
        Err(cause) => Err(LessonError::new(
            "E_INDEX_DESYNC",
            "ledger index invalid JSON",
            entry::details([("cause", Some(JsValue::str(&cause.to_string())))]),
        )),
    }
}

fn desync(message: String, at: &str) -> LessonError {
    LessonError::new(
        "E_INDEX_DESYNC",
        message,
        entry::details([("at", Some(JsValue::str(at)))]),
    )
}

/// `updateIndex` (B.3) for one entry, on the parsed index: `by_pattern` and `by_id` made objects
/// when missing or falsy, `by_id[id] = {created}`, the id pushed once under each key. Where the
/// reference would throw after appending or silently lose the id (a section that is a string, a
/// number or an array; a key holding something that is not a list), the entry is refused.
pub fn index_entry(index: &mut JsObject, entry: &JsObject) -> Result<(), LessonError> {
    let super::index::Addition { id, created, keys } = super::index::Addition::of(entry);
    for name in ["by_pattern", "by_id"] {
        if !index.get(name).is_some_and(JsValue::truthy) {
            index.set(name, JsValue::Object(JsObject::new()));
        }
        if !matches!(index.get(name), Some(JsValue::Object(_))) {
            return Err(desync(
                format!("ledger index: {name} is not an object"),
                name,
            ));
        }
    }
    if let Some(JsValue::Object(by_pattern)) = index.get("by_pattern") {
        for key in &keys {
            match by_pattern.get_js(key) {
                Some(JsValue::Array(_)) => {}
                Some(JsValue::String(text)) if contains_js(text, &id) => {}
                Some(value) if value.truthy() => {
                    return Err(desync(
                        format!(
                            "ledger index: by_pattern[{}] is not a list",
                            JsValue::String(key.clone()).to_json_string()
                        ),
                        "by_pattern",
                    ))
                }
                _ => {}
            }
        }
    }
    if let Some(JsValue::Object(by_id)) = index.get_mut("by_id") {
        let mut record = JsObject::new();
        record.set("created", created);
        by_id.insert(id.clone(), JsValue::Object(record));
    }
    if let Some(JsValue::Object(by_pattern)) = index.get_mut("by_pattern") {
        for key in keys {
            match by_pattern.get_js_mut(&key) {
                Some(JsValue::Array(ids)) => {
                    if !ids.iter().any(|v| v.as_js_str() == Some(&id)) {
                        ids.push(JsValue::String(id.clone()));
                    }
                }
                Some(JsValue::String(_)) => {} // holds the id already (checked above)
                _ => by_pattern.insert(key, JsValue::Array(vec![JsValue::String(id.clone())])),
            }
        }
    }
    Ok(())
}

/// `text.includes(part)` on strings.
fn contains_js(text: &JsString, part: &JsString) -> bool {
    part.is_empty() || memchr::memmem::find(text.as_bytes(), part.as_bytes()).is_some()
}

/// What an append did: the ids written, the torn tail it removed first (its bytes), and a
/// warning when the lessons are in but the index could not be replaced.
pub struct Appended {
    pub ids: Vec<String>,
    pub truncated: Option<usize>,
    pub index_warning: Option<String>,
}

/// Appends validated lessons (`JSON.stringify` of each, one line each) under the lock: the index
/// is read and updated in memory first, and an index the reference could not update refuses
/// everything; a torn last line left by a crash is cut off (only the partial line); all lines go
/// in one write, synced; then the index is replaced.
pub fn append(paths: &Paths, entries: &[JsObject]) -> Result<Appended, LessonError> {
    let lock = lock(paths)?;
    append_locked(paths, entries, &lock)
}

/// The ledger's directory (created if missing).
pub(crate) fn dir(paths: &Paths) -> Result<PathBuf, LessonError> {
    let dir = ucg_store::dir_of(&paths.ledger);
    ucg_store::create_dirs(dir).map_err(|e| {
        let message = format!("cannot create {}: {e}", dir.display());
        LessonError::new("E_IO", message, JsValue::Null)
    })?;
    Ok(dir.to_path_buf())
}

/// The writers' lock: the ledger directory's.
pub(crate) fn lock(paths: &Paths) -> Result<ucg_store::DirLock, LessonError> {
    Ok(ucg_store::lock_dir(&dir(paths)?)?)
}

/// The index after `entries`, as `JSON.stringify` writes it, and whether it is in the layout the
/// splice relies on.
enum NewIndex {
    Spliced(super::index::Splice),
    Whole(Vec<u8>, bool),
}

/// [`append`] for a caller that already holds the ledger directory's lock.
pub(crate) fn append_locked(
    paths: &Paths,
    entries: &[JsObject],
    lock: &ucg_store::DirLock,
) -> Result<Appended, LessonError> {
    let io = |what: &str, e: std::io::Error| {
        LessonError::new(
            "E_IO",
            format!("{what}: {e}"),
            entry::details([("path", Some(JsValue::str(&paths.ledger.to_string_lossy())))]),
        )
    };
    // The index git-ucg wrote last is mapped rather than read (a large one is scanned, not
    // copied); any other is read.
    let ours = super::index::is_ours(&paths.index);
    let mapped = match ours {
        true => map_index(&paths.index),
        false => ucg_store::read_optional(&paths.index)
            .map(|bytes| bytes.map(|bytes| Box::new(bytes) as IndexBytes))
            .map_err(|e| std::io::Error::other(e.to_string())),
    }
    .map_err(|e| io("cannot read the index", e))?;
    let index_bytes: Option<&[u8]> = mapped.as_deref().map(|bytes| &**bytes);
    let additions: Vec<_> = entries.iter().map(super::index::Addition::of).collect();
    let empty = super::index::to_bytes(&JsObject::new());
    // The index as git-ucg last wrote it takes a splice; anything else is parsed, updated as the
    // reference updates it, and written whole (and one the reference could not update refuses
    // the append before the ledger is touched).
    let base: &[u8] = index_bytes.unwrap_or(&empty);
    let spliced = match index_bytes {
        Some(_) if !ours => None,
        _ => super::index::splice(base, &additions),
    };
    let new_index = match spliced {
        Some(splice) => NewIndex::Spliced(splice),
        None => {
            let mut index = load_index(index_bytes)?;
            for entry in entries {
                index_entry(&mut index, entry)?;
            }
            let canonical = super::index::is_canonical(&index);
            NewIndex::Whole(super::index::to_bytes(&index), canonical)
        }
    };
    let mut bytes = Vec::new();
    for entry in entries {
        bytes.extend_from_slice(&JsValue::Object(entry.clone()).to_json());
        bytes.push(b'\n');
    }
    // A torn last line that is a whole JSON value only lost its newline: it is ended, not cut.
    let truncated = ucg_store::append_cutting_torn_tail(&paths.ledger, &bytes, is_whole).map_err(
        |(step, e)| {
            let what = match step {
                ucg_store::AppendStep::Open => "cannot open the ledger",
                ucg_store::AppendStep::CutTornTail => "cannot repair the ledger's torn tail",
                ucg_store::AppendStep::Write => "cannot append to the ledger",
                ucg_store::AppendStep::Sync => "cannot sync the ledger",
            };
            io(what, e)
        },
    )?;
    // The index is derived from the ledger (synced above): replaced atomically, not synced —
    // `lesson audit --fix` rebuilds it should a power loss leave an older, empty or cut one.
    // The index is replaced after the lines are safe in the ledger: if that fails, the lesson is
    // still appended (and reported so); the index is left to `lesson audit --fix`.
    let written = ucg_store::write_atomic_unsynced_with(lock, &paths.index, |out| {
        match &new_index {
            NewIndex::Spliced(splice) => splice.write_to(base, out)?,
            NewIndex::Whole(text, _) => out.write_all(text)?,
        }
        // Only an index in the splice's layout is stamped for it.
        match new_index {
            NewIndex::Spliced(_) | NewIndex::Whole(_, true) => {
                super::index::record_file(&paths.index, out)
            }
            NewIndex::Whole(_, false) => super::index::forget(&paths.index),
        }
        Ok(())
    });
    let index_warning = written.err().map(|e| {
        super::index::forget(&paths.index);
        format!(
            "warning: {}: the lesson is appended but the index could not be replaced ({e}): \
run `git ucg lesson audit --fix`",
            paths.index.display()
        )
    });
    Ok(Appended {
        ids: additions
            .iter()
            .map(|a| a.id.to_lossy().into_owned())
            .collect(),
        truncated,
        index_warning,
    })
}

/// The index file mapped into memory (`None` when absent; empty files are read, not mapped).
fn map_index(path: &Path) -> std::io::Result<Option<IndexBytes>> {
    // Never blocks in open: a FIFO in the index's place is refused, not waited on.
    let Some(file) = ucg_store::open_regular(path)? else {
        return Ok(None);
    };
    let metadata = file.metadata()?;
    if metadata.len() == 0 {
        return Ok(Some(Box::new(Vec::new())));
    }
    // SAFETY: mapped only when the stamp says git-ucg wrote it last; git-ucg writes it only under
    // the ledger directory's lock, which the caller holds, and only by replacing the file (a swap
    // or a rename), never in place: the mapped file does not change while mapped.
    let map = unsafe { memmap2::Mmap::map(&file) }?;
    Ok(Some(Box::new(map)))
}

/// The index's bytes, mapped or read.
type IndexBytes = Box<dyn std::ops::Deref<Target = [u8]>>;

/// The index rebuilt from the ledger's valid lessons (under the lock, synced): the way back from a
/// desynchronized or corrupt index.
pub fn rebuild_index(paths: &Paths) -> Result<usize, LessonError> {
    let lock = lock(paths)?;
    let bytes = ucg_store::read_optional(&paths.ledger)?.unwrap_or_default();
    let (lines, _) = lines(&bytes);
    let mut index = JsObject::new();
    let mut count = 0;
    let valid = lines
        .iter()
        .filter_map(|line| entry::validate(line.parsed.as_ref().ok()?).ok());
    for entry in valid {
        index_entry(&mut index, entry)?;
        count += 1;
    }
    ucg_store::write_atomic(&lock, &paths.index, &super::index::to_bytes(&index))?;
    super::index::record(&paths.index);
    Ok(count)
}
