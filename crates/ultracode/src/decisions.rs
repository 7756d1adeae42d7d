//! `IMPL/.decisions.json`, the operator's answers (docs/formats/ucg.md §1.2). Pure functions over bytes.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;
use ucg_store::pyjson::{self, Object, Reader, Value};

/// The answers file's name inside the implementation-artifacts directory.
pub const DECISIONS_FILE: &str = ".decisions.json";

/// A set of decision ids.
pub type IdSet = HashSet<String, foldhash::fast::RandomState>;

/// A set of decision ids borrowed from the document that holds them.
pub(crate) type IdRefs<'a> = HashSet<&'a str, foldhash::fast::RandomState>;

/// The ids closed by the answers file, as the registry writer reads them: entries that are objects
/// with `action` exactly `"close"` and a string `id`. The reader is fail-open: a missing,
/// unreadable or malformed file closes nothing, so every RED stands.
pub fn closed_ids(bytes: Option<&[u8]>) -> IdSet {
    let bytes = bytes.unwrap_or_default();
    closing_ids_read(bytes, bytes.len(), bytes.len() as u64)
        .iter()
        .map(str::to_string)
        .collect()
}

/// The ids closed by the answers file (see [`closed_ids`]) in file order, repeats included, read
/// from `reader` a window of about `window` bytes at a time. The file can hold a whole project's
/// history of answers, and only the ids of closing entries matter, so it is walked, not parsed:
/// nothing is built for the rest. Every byte is still checked, and a document is accepted or
/// refused exactly as `pyjson` (Python's `json.loads`) would — a refused one closes nothing.
/// The file is not kept: a project's answers file can be ten megabytes, which read whole are ten
/// megabytes of fresh memory the kernel must clear and map first (the registry writer's slowest
/// step).
/// A read error closes nothing, as an unreadable file does.
/// `size` is the file's size as far as it is known (what the ids can take at most, reserved
/// once: the ids of a large file copied over as their list grew were a fifth of the scan).
pub fn closing_ids_read(reader: impl std::io::Read, window: usize, size: u64) -> ClosingIds {
    let size = usize::try_from(size).unwrap_or(0);
    // An id is shorter than its entry, and a closing entry is at least 26 bytes.
    let mut ids = ClosingIds {
        text: String::with_capacity(size),
        ends: Vec::with_capacity(size / 26),
    };
    match Stream::new(reader, window).document(&mut ids) {
        Ok(true) => ids,
        Ok(false) | Err(_) => ClosingIds::default(),
    }
}

/// Closing ids, copied one after the other into one string.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ClosingIds {
    text: String,
    ends: Vec<usize>,
}

impl ClosingIds {
    /// In file order, repeats included.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(&self.ends)
            .map(|(start, &end)| self.text.get(start..end).unwrap_or_default())
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    /// How many there are, to go back to when a step is tried again.
    fn mark(&self) -> usize {
        self.ends.len()
    }

    fn back_to(&mut self, mark: usize) {
        self.ends.truncate(mark);
        self.text.truncate(self.ends.last().copied().unwrap_or(0));
    }
}

/// Where [`Stream`] is in the document: each step reads from here to the next byte that ends
/// one (a `{`, `:`, `,`, `]` or `}`), so that whether it holds never depends on bytes after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Before the top-level value.
    Open,
    /// After the top-level `{`.
    FirstMember,
    /// After a `,` between members.
    Member,
    /// After a key and its `:`; whether the key is `decisions`.
    Value { decisions: bool },
    /// After the `[` of the `decisions` list.
    FirstEntry,
    /// After a `,` between entries.
    Entry,
    /// After the top-level `}`: only whitespace may follow.
    Tail,
}

/// The walk over a file a window at a time. A step that fails is tried again with more of the
/// file in the window (the window grows when the step alone fills it), and fails for good only
/// once the window holds the rest of the file: so every step ends exactly where a walk of the
/// whole text would, and fails exactly where it would.
struct Stream<R> {
    reader: R,
    buf: Vec<u8>,
    /// Where the next step starts.
    start: usize,
    /// How much of `buf` holds the file.
    end: usize,
    /// The window holds the rest of the file.
    eof: bool,
}

/// The outcome of a step.
enum StepOutcome {
    /// The next step, and where it starts.
    To(Step, usize),
    /// The document closes nothing, whatever follows (it is not an object).
    Nowhere,
}

impl<R: std::io::Read> Stream<R> {
    fn new(reader: R, window: usize) -> Self {
        Stream {
            reader,
            buf: vec![0; window.max(4)],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// Keeps what is left of the window, reads more of the file after it (the window doubles
    /// when what is left fills it).
    fn more(&mut self) -> std::io::Result<()> {
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        while self.end < self.buf.len() {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Walks the document, collecting into `ids`: `false` when it closes nothing (not a document
    /// Python reads, or not an object).
    fn document(&mut self, ids: &mut ClosingIds) -> std::io::Result<bool> {
        let mut step = Step::Open;
        loop {
            self.more()?;
            // Text up to the last whole character; a byte that is no UTF-8 refuses the file, as
            // Python's decoding of the whole file does.
            let text = match std::str::from_utf8(&self.buf[..self.end]) {
                Ok(text) => text,
                Err(e) if e.error_len().is_none() && !self.eof => {
                    match std::str::from_utf8(&self.buf[..e.valid_up_to()]) {
                        Ok(text) => text,
                        Err(_) => return Ok(false),
                    }
                }
                Err(_) => return Ok(false),
            };
            if step == Step::Open && text.starts_with('\u{feff}') {
                return Ok(false);
            }
            let mut reader = Reader::window(text);
            let mut pos = self.start;
            loop {
                if step == Step::Tail {
                    // Only whitespace may follow, which need not stay in the window.
                    pos = reader.skip_ws(pos);
                    if pos < text.len() {
                        return Ok(false);
                    }
                    if self.eof {
                        return Ok(true);
                    }
                    self.start = pos;
                    break;
                }
                let mark = ids.mark();
                match walk_step(&mut reader, pos, step, ids) {
                    Some(StepOutcome::To(next, end)) => (step, pos) = (next, end),
                    Some(StepOutcome::Nowhere) => return Ok(false),
                    None if self.eof => return Ok(false),
                    None => {
                        // Not within this window: again with more of the file.
                        ids.back_to(mark);
                        self.start = pos;
                        break;
                    }
                }
            }
        }
    }
}

/// One step of [`Stream`]'s walk, from `pos`: where it goes, `None` when it does not hold in
/// this text. The nesting it is at is set before each value is walked (the top-level object is
/// one level, the `decisions` list two, an entry's members three), as a whole-document walk
/// would count it.
fn walk_step(
    reader: &mut Reader,
    pos: usize,
    step: Step,
    ids: &mut ClosingIds,
) -> Option<StepOutcome> {
    let pos = reader.skip_ws(pos);
    let byte = reader.peek(pos)?;
    let to = |step, pos| Some(StepOutcome::To(step, pos));
    match step {
        Step::Open if byte == b'{' => to(Step::FirstMember, pos + 1),
        Step::Open => Some(StepOutcome::Nowhere),
        Step::FirstMember if byte == b'}' => to(Step::Tail, pos + 1),
        Step::FirstMember | Step::Member => {
            let (key, _, at) = reader.member_key(pos).ok()?;
            let decisions = key == "decisions";
            to(Step::Value { decisions }, at)
        }
        Step::Value { decisions } => {
            if decisions {
                // As in a dict, the last `decisions` key wins.
                ids.back_to(0);
                if byte == b'[' {
                    return to(Step::FirstEntry, pos + 1);
                }
            }
            reader.set_depth(1);
            let end = reader.skip(pos).ok()?;
            after_member(reader, end)
        }
        Step::FirstEntry if byte == b']' => after_member(reader, pos + 1),
        Step::FirstEntry | Step::Entry => {
            reader.set_depth(2);
            let (id, end) = closing_entry(reader, pos).ok()?;
            if let Some(id) = id {
                ids.push(&id);
            }
            let end = reader.skip_ws(end);
            match reader.peek(end)? {
                b',' => to(Step::Entry, end + 1),
                b']' => after_member(reader, end + 1),
                _ => None,
            }
        }
        // Walked by `Stream::document` itself.
        Step::Tail => None,
    }
}

/// After a member's value: the next member, or the end of the top-level object.
fn after_member(reader: &Reader, pos: usize) -> Option<StepOutcome> {
    let pos = reader.skip_ws(pos);
    let next = match reader.peek(pos)? {
        b',' => Step::Member,
        b'}' => Step::Tail,
        _ => return None,
    };
    Some(StepOutcome::To(next, pos + 1))
}

/// An entry of the `decisions` list at `pos`: the id it closes, if it does (duplicate keys: the
/// last one wins, as in a dict), and where it ends.
fn closing_entry<'a>(
    reader: &mut Reader<'a>,
    pos: usize,
) -> Result<(Option<Cow<'a, str>>, usize), pyjson::DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        return Ok((None, reader.skip(pos)?));
    }
    let (mut id, mut closes) = (None, false);
    let end = reader.object(pos, |reader, key, at| match key {
        "id" => string_field(reader, at).map(|(text, end)| {
            id = text;
            end
        }),
        "action" => string_field(reader, at).map(|(text, end)| {
            closes = text.is_some_and(|action| action == "close");
            end
        }),
        _ => reader.skip(at),
    })?;
    Ok((id.filter(|_| closes), end))
}

/// The member value at `pos` as an `id` or `action` is read: its text when it is a string with
/// no lone surrogate (one can equal no id and no action), and where it ends.
fn string_field<'a>(
    reader: &mut Reader<'a>,
    pos: usize,
) -> Result<(Option<Cow<'a, str>>, usize), pyjson::DecodeError> {
    if reader.peek(pos) != Some(b'"') {
        return Ok((None, reader.skip(pos)?));
    }
    let (text, end, replaced) = reader.str_lossy(pos)?;
    Ok(((!replaced).then_some(text), end))
}

/// An object entry of the `decisions` list as a reader of answers sees it: its `id` (a string),
/// the JSON text of its `answer` and `action` values (`None`: absent), and its `occurrence` when
/// that is a string (the escalation sidecar it answered). Of a repeated key, the last one counts,
/// as in a dict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerEntry<'a> {
    pub id: Cow<'a, str>,
    pub answer: Option<&'a str>,
    pub action: Option<&'a str>,
    pub occurrence: Option<Cow<'a, str>>,
    /// Its `decision_needed` when that is a string: the question it answered, kept with answers
    /// recorded since git-ucg keeps it (for reworded questions).
    pub decision_needed: Option<Cow<'a, str>>,
    /// Who answered and when (`by`, `at`), when they are strings: what a contested answer shows.
    pub by: Option<Cow<'a, str>>,
    pub at: Option<Cow<'a, str>>,
}

/// The entries of `bytes` that `keep` wants (judging each whole: its id, and whether it kept its
/// question), in file order, read without building the rest — when the file is one
/// [`decisions_for_write`] accepts. `None` when it is not (or may not be: then that reader says
/// why): this scanner is strict where a lone surrogate is concerned, as `pyjson::loads` is.
pub fn answer_entries<'a>(
    bytes: &'a [u8],
    keep: &dyn Fn(&AnswerEntry<'a>) -> bool,
) -> Option<Vec<AnswerEntry<'a>>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut entries = None;
    let is_object = Reader::document(text, |reader, pos| {
        reader.refuse_lone_surrogates();
        if reader.peek(pos) != Some(b'{') {
            return Ok((false, reader.skip(pos)?));
        }
        let end = reader.object(pos, |reader, key, at| {
            if key != "decisions" {
                return reader.skip(at);
            }
            // As in a dict, the last `decisions` key wins.
            entries = None;
            if reader.peek(at) != Some(b'[') {
                return reader.skip(at);
            }
            let mut kept = Vec::new();
            let end = reader.array(at, |reader, item| {
                let (entry, end) = answer_entry(reader, item)?;
                kept.extend(entry.filter(|entry| keep(entry)));
                Ok(end)
            })?;
            entries = Some(kept);
            Ok(end)
        })?;
        Ok((true, end))
    })
    .ok()?;
    entries.filter(|_| is_object)
}

/// The entry of the `decisions` list at `pos`, when it is an object with a string `id`, and
/// where it ends.
fn answer_entry<'a>(
    reader: &mut Reader<'a>,
    pos: usize,
) -> Result<(Option<AnswerEntry<'a>>, usize), pyjson::DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        return Ok((None, reader.skip(pos)?));
    }
    let (mut id, mut answer, mut action) = (None, None, None);
    let (mut occurrence, mut decision_needed) = (None, None);
    let (mut by, mut when) = (None, None);
    let end = reader.object(pos, |reader, key, at| {
        let slot = match key {
            "id" => &mut id,
            "occurrence" => &mut occurrence,
            "decision_needed" => &mut decision_needed,
            "by" => &mut by,
            "at" => &mut when,
            "answer" | "action" => {
                let end = reader.skip(at)?;
                let slot = if key == "answer" {
                    &mut answer
                } else {
                    &mut action
                };
                *slot = reader.slice(at..end);
                return Ok(end);
            }
            _ => return reader.skip(at),
        };
        let (text, end) = string_field(reader, at)?;
        *slot = text;
        Ok(end)
    })?;
    let entry = id.map(|id| AnswerEntry {
        id,
        answer,
        action,
        occurrence,
        decision_needed,
        by,
        at: when,
    });
    Ok((entry, end))
}

/// The text of an answer's field (an [`AnswerEntry`]'s `answer` or `action`) as Python's `str()`
/// prints its value; `""` when it is absent.
pub fn field_text(json: Option<&str>) -> Cow<'_, str> {
    let Some(json) = json else {
        return Cow::Borrowed("");
    };
    let plain =
        json.len() >= 2 && json.starts_with('"') && !json[1..json.len() - 1].contains(['\\', '"']);
    if plain {
        return Cow::Borrowed(&json[1..json.len() - 1]);
    }
    match pyjson::loads(json) {
        Ok(Value::Str(text)) => Cow::Owned(text),
        Ok(value) => Cow::Owned(pyjson::py_str(&value)),
        Err(_) => Cow::Borrowed(""),
    }
}

/// An entry's id (an answer's, a RED's): the `id` of an entry that is an object and whose `id` is
/// a string.
pub(crate) fn entry_id(entry: &Value) -> Option<&str> {
    entry.as_object()?.get("id")?.as_str()
}

/// Why `.decisions.json` cannot be written: it would lose what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorruptDecisions {
    pub reason: String,
}

/// The answers document as a writer (and whoever tells the operator to run one) must find it:
/// its other top-level keys and its entries. An absent file is
/// an empty document; anything that is not an object with a list-valued `decisions` is refused.
pub fn decisions_for_write(bytes: Option<&[u8]>) -> Result<(Object, Vec<Value>), CorruptDecisions> {
    let Some(bytes) = bytes else {
        return Ok((Object::default(), Vec::new()));
    };
    let corrupt = |reason: String| CorruptDecisions { reason };
    let text = std::str::from_utf8(bytes).map_err(|e| corrupt(format!("it is not UTF-8 ({e})")))?;
    let value = pyjson::loads(text).map_err(|e| corrupt(format!("it is not JSON ({e})")))?;
    let Value::Object(mut doc) = value else {
        return Err(corrupt("it is not a JSON object".into()));
    };
    match doc.get_mut("decisions") {
        Some(Value::Array(entries)) => {
            let entries = std::mem::take(entries);
            Ok((*doc, entries))
        }
        Some(_) => Err(corrupt("its `decisions` is not a list".into())),
        None => Err(corrupt("it has no `decisions` list".into())),
    }
}

/// The answers file as a writer reads it, without holding it as one tree of values: each entry
/// is parsed, laid out as it will be written back, and let go; what merging and applying need of
/// it is kept beside its text. The rest of the document is kept as parsed.
#[derive(Debug, Default)]
pub struct AnswersFile {
    /// The file's text (entries are re-read from it when their answer is wanted).
    source: String,
    /// The top-level members, `decisions` holding its place with a placeholder.
    doc: Object,
    /// The entries whose text in the file is not already what
    /// `json.dumps(indent=2, ensure_ascii=False)` writes two levels deep, as it writes them.
    rendered: String,
    entries: Vec<FileEntry>,
}

/// One entry of [`AnswersFile`].
#[derive(Debug, Clone)]
pub struct FileEntry {
    /// Its text in the file.
    source: Range<usize>,
    /// Its text as written back, in `rendered`; `None` when that is its text in the file (a file
    /// this tool or UltraCode Goal wrote: then nothing is copied).
    rendered: Option<Range<usize>>,
    /// Its `id`, when it is an object whose `id` is a string.
    pub id: Option<String>,
    /// It is an object whose `action` is exactly `"close"`.
    pub closes: bool,
}

impl AnswersFile {
    /// Reads the file's bytes (`None`: no file, an empty document) with the acceptance of
    /// [`decisions_for_write`], and its refusal, word for word, when it refuses.
    pub fn read(bytes: Option<Vec<u8>>) -> Result<AnswersFile, CorruptDecisions> {
        let Some(bytes) = bytes else {
            let mut doc = Object::default();
            doc.insert("decisions".into(), Value::Null);
            return Ok(AnswersFile {
                doc,
                ..AnswersFile::default()
            });
        };
        let text = String::from_utf8(bytes).map_err(|e| refusal(e.as_bytes()))?;
        match AnswersFile::walk(&text) {
            Ok(Some((doc, rendered, entries))) => Ok(AnswersFile {
                source: text,
                doc,
                rendered,
                entries,
            }),
            _ => Err(refusal(text.as_bytes())),
        }
    }

    /// The walk: `Ok(None)` when the document is JSON but not an object with a list-valued
    /// `decisions` (the last one counts, as in a dict).
    fn walk(text: &str) -> Result<Option<(Object, String, Vec<FileEntry>)>, pyjson::DecodeError> {
        let mut doc = Object::default();
        let mut rendered = String::new();
        let mut sized = false;
        // An entry is laid out after the others; when that is its text in the file, it is cut
        // again: the file as written back keeps the text. Otherwise the layout is kept, in room
        // for the rest of the file laid out the same way (sized once: a buffer of megabytes
        // growing by doubling would copy itself over).
        let mut keep_layout = |rendered: &mut String, start: usize, source: Range<usize>| {
            if rendered.get(start..) == text.get(source.clone()) {
                rendered.truncate(start);
                return None;
            }
            if !sized {
                sized = true;
                rendered.reserve(text.len().saturating_sub(source.end) * 3 / 2);
            }
            Some(start..rendered.len())
        };
        // Room for an entry every 64 bytes (an answer is longer): room not filled is never
        // touched, and a list of 100,000 entries growing by doubling would copy itself over.
        let mut entries = Vec::with_capacity(text.len() / 64);
        let mut listed = false;
        let is_object = Reader::document(text, |reader, pos| {
            if reader.peek(pos) != Some(b'{') {
                return Ok((false, reader.skip(pos)?));
            }
            let end = reader.object(pos, |reader, key, at| {
                if reader.key_replaced() {
                    return Err(pyjson::DecodeError::default());
                }
                if key != "decisions" || reader.peek(at) != Some(b'[') {
                    let (value, end) = reader.value(at)?;
                    listed = listed && key != "decisions";
                    doc.insert(key.to_string(), value);
                    return Ok(end);
                }
                listed = true;
                doc.insert(key.to_string(), Value::Null);
                rendered.clear();
                entries.clear();
                reader.array(at, |reader, item| {
                    let start = rendered.len();
                    let (end, id, closes) = match flat_entry(reader, item, &mut rendered)? {
                        Some(flat) => flat,
                        None => {
                            rendered.truncate(start);
                            let (value, end) = reader.value(item)?;
                            pyjson::write_pretty_value(&mut rendered, &value, 2);
                            let text = |key| value.as_object()?.get(key)?.as_str();
                            let id = text("id").map(str::to_string);
                            (end, id, text("action") == Some("close"))
                        }
                    };
                    entries.push(FileEntry {
                        source: item..end,
                        rendered: keep_layout(&mut rendered, start, item..end),
                        id,
                        closes,
                    });
                    Ok(end)
                })
            })?;
            Ok((true, end))
        })?;
        Ok((is_object && listed).then_some((doc, rendered, entries)))
    }

    pub fn entries(&self) -> &[FileEntry] {
        &self.entries
    }

    /// An entry as parsed (for the few whose answer is wanted).
    pub fn value(&self, entry: &FileEntry) -> Option<Value> {
        pyjson::loads(self.source.get(entry.source.clone())?).ok()
    }

    /// The document with `decisions` made of `pieces` (kept entries, by index, and new entries),
    /// as `json.dumps(indent=2, ensure_ascii=False)` writes it, with a final newline.
    pub fn render(&self, pieces: &[EntryPiece]) -> String {
        let mut out = Vec::new();
        // Writing to a vector cannot fail.
        let _ = self.write_to(pieces, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// [`AnswersFile::render`] written to `out` as it is laid out, a chunk at a time (a long
    /// project's file is never held twice).
    pub(crate) fn write_to(
        &self,
        pieces: &[EntryPiece],
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        const CHUNK: usize = 256 << 10;
        let mut chunk = String::with_capacity(CHUNK + 4096);
        let mut flush = |chunk: &mut String, at_least: usize| {
            if chunk.len() < at_least {
                return Ok(());
            }
            out.write_all(chunk.as_bytes())?;
            chunk.clear();
            Ok::<_, std::io::Error>(())
        };
        chunk.push('{');
        for (i, (key, value)) in self.doc.iter().enumerate() {
            chunk.push_str(if i == 0 { "\n  " } else { ",\n  " });
            pyjson::write_string(&mut chunk, key, false);
            chunk.push_str(": ");
            if key != "decisions" {
                pyjson::write_pretty_value(&mut chunk, value, 1);
                flush(&mut chunk, CHUNK)?;
                continue;
            }
            if pieces.is_empty() {
                chunk.push_str("[]");
                continue;
            }
            chunk.push('[');
            for (i, piece) in pieces.iter().enumerate() {
                chunk.push_str(if i == 0 { "\n    " } else { ",\n    " });
                match piece {
                    EntryPiece::Kept(index) => {
                        let text = self.entries.get(*index).and_then(|e| self.layout(e));
                        chunk.push_str(text.unwrap_or("null"));
                    }
                    EntryPiece::New(value) => pyjson::write_pretty_value(&mut chunk, value, 2),
                }
                flush(&mut chunk, CHUNK)?;
            }
            chunk.push_str("\n  ]");
        }
        chunk.push_str("\n}\n");
        flush(&mut chunk, 0)
    }

    /// An entry's text as written back.
    fn layout(&self, entry: &FileEntry) -> Option<&str> {
        match &entry.rendered {
            Some(rendered) => self.rendered.get(rendered.clone()),
            None => self.source.get(entry.source.clone()),
        }
    }
}

/// An entry that is an object of distinct keys whose values are strings or scalars (what an
/// answer is), written as `pyjson::write_pretty_value` writes it two levels deep without building
/// it first: where it ends, its `id` and whether it closes. `None` (with whatever was written
/// left for the caller to cut) for any other entry, which is then read whole.
fn flat_entry(
    reader: &mut Reader,
    pos: usize,
    out: &mut String,
) -> Result<Option<(usize, Option<String>, bool)>, pyjson::DecodeError> {
    if reader.peek(pos) != Some(b'{') {
        return Ok(None);
    }
    // Nothing here can fail where `Reader::value` would not: a refusal only says "read it whole".
    let mut keys: Vec<String> = Vec::new();
    let (mut id, mut closes) = (None, false);
    let walked = reader.object(pos, |reader, key, at| {
        if reader.key_replaced() || keys.iter().any(|k| k == key) || keys.len() >= 16 {
            return Err(pyjson::DecodeError::default());
        }
        out.push_str(if keys.is_empty() {
            "{\n      "
        } else {
            ",\n      "
        });
        pyjson::write_string(out, key, false);
        out.push_str(": ");
        keys.push(key.to_string());
        match reader.peek(at) {
            Some(b'"') => {
                let (text, end) = reader.str(at)?;
                pyjson::write_string(out, &text, false);
                match key {
                    "id" => id = Some(text.into_owned()),
                    "action" => closes = text == "close",
                    _ => {}
                }
                Ok(end)
            }
            Some(b'{' | b'[') => Err(pyjson::DecodeError::default()),
            _ => {
                let (value, end) = reader.value(at)?;
                pyjson::write_pretty_value(out, &value, 3);
                Ok(end)
            }
        }
    });
    let Ok(end) = walked else {
        return Ok(None);
    };
    out.push_str(if keys.is_empty() { "{}" } else { "\n    }" });
    Ok(Some((end, id, closes)))
}

/// Why [`decisions_for_write`] refuses `bytes`, which the walk of [`AnswersFile::read`] refused.
fn refusal(bytes: &[u8]) -> CorruptDecisions {
    match decisions_for_write(Some(bytes)) {
        Err(refused) => refused,
        // The two readers agree (a property test holds them to it); should they not, refuse.
        Ok(_) => CorruptDecisions {
            reason: "it cannot be read as an answers file".into(),
        },
    }
}

/// An entry of the `decisions` list being written: one kept from the file, or a new one.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryPiece {
    Kept(usize),
    New(Value),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_close_with_string_id_counts() {
        let file = br#"{"decisions": [
            {"id": "a", "action": "close"}, {"id": "b", "action": "Close"},
            {"id": "c", "action": "defer"}, {"id": 4, "action": "close"}, "x",
            {"id": "d", "action": "close", "id": 5}, {"id": "e", "action": "close", "action": "no"},
            {"id": 6, "action": "close", "id": "f"}]}"#;
        assert_eq!(
            closed_ids(Some(file)),
            IdSet::from_iter(["a".to_string(), "f".to_string()])
        );
    }

    #[test]
    fn corrupt_files_close_nothing() {
        for bad in [
            &b"{ this is not json"[..],
            b"[]",
            b"{\"decisions\": {}}",
            b"\xff",
        ] {
            assert!(closed_ids(Some(bad)).is_empty());
        }
        assert!(closed_ids(None).is_empty());
    }
}
