//! git-ucg's index of the ledger for `query`: which lessons each pattern token picks, and
//! everything else a query's answer depends on that is spread over the whole ledger — the
//! warnings for the lines it skips, the invalidated lessons and markers (left out), each lesson's
//! `superseded_by`, its `created` and its place in the ledger. An answer from the index is the
//! answer of a scan: only the lessons kept are read from the ledger again.
//!
//! DG-Anvil's own index (`ledger.index.json`) cannot stand in for it: its keys are whole pattern
//! elements lowercased (`rate-limit`), not tokens; a lesson without a pattern array is indexed by
//! its tags; lessons that fail validation, lines DG-Anvil wrote but did not index (a crash between
//! the two writes), malformed lines, markers and supersessions are not in it at all; and it says
//! nothing of where a lesson is. So this one is built from a scan of the ledger and kept beside it
//! for the next query, keyed by the ledger's identity (device, inode, size, modification and
//! change times): any write to the ledger, by anyone, makes it stale and the next query scans.
//!
//! Building it is the scan: every line is read for its [`Facts`], on every core; a line the skim
//! ([`super::skim`]) is sure of is read from its raw fields, any other is parsed whole.
//!
//! The layout (little-endian; lengths and offsets are `u64`, lesson numbers in postings `u32`):
//! a header — magic, [`FORMAT`], a checksum of everything after it (seeded with git-ucg's
//! version: another version's index is rebuilt, its facts may mean something else), the ledger's
//! identity, the torn line (0 for none) and the counts of the five sections — then the warnings
//! (kind, line, message), the lessons in ledger order (their line, `created`, `superseded_by`),
//! the tokens in byte order (each with its run of postings), the postings (lesson numbers,
//! ascending), and the heap of bytes the others point into.

use super::entry;
use super::js::{self, JsString, JsValue};
use super::skim::{self, Field, Skim};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use ucg_store::Freshness;

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type Set<K> = HashSet<K, foldhash::fast::RandomState>;

/// The layout's version. Bump it whenever the layout changes (a new git-ucg version rebuilds the
/// index anyway: the checksum is seeded with it).
pub(crate) const FORMAT: u32 = 1;

const MAGIC: &[u8; 16] = b"git-ucg lessonq\n";

/// How deep a worker's stack lets the parser go (`js::MAX_DEPTH` levels).
const WORKER_STACK: usize = 64 << 20;

/// Below this many bytes the ledger is read on one core.
const PARALLEL_FROM: usize = 1 << 20;

/// What the ranking reports about lines it skipped, by physical line number.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// A last line without its newline that is not JSON: a crash tore it.
    Torn(usize),
    Null(usize),
    /// The parser's message.
    Malformed(usize, String),
}

/// What a query takes from one lesson line. `id` is read when the lesson has tokens or
/// supersedes others, `created` when it has tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts<'a> {
    /// Where the tokens of its `pattern` (`entry::pattern_tokens`) are in the list the line was
    /// read with: each at least once, in no set order.
    pub tokens: Range<usize>,
    /// `id`, when it is a string (its WTF-8 bytes).
    pub id: Option<Cow<'a, [u8]>>,
    /// `String(created || '')`.
    pub created: Cow<'a, [u8]>,
    /// What it does to other lessons, when it does anything.
    pub rare: Option<Box<RareFacts>>,
}

/// What few lessons have: an invalidation, supersessions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RareFacts {
    /// `invalidates`, when it is a string.
    pub invalidates: Option<JsString>,
    /// A truthy `invalidates`: an invalidation marker.
    pub marker: bool,
    /// The strings of a `supersedes` array.
    pub supersedes: Vec<JsString>,
}

impl RareFacts {
    /// `None` when the lesson does none of it.
    fn of(invalidates: Option<&JsValue>, supersedes: Vec<JsString>) -> Option<Box<RareFacts>> {
        let rare = RareFacts {
            invalidates: invalidates.and_then(JsValue::as_js_str).cloned(),
            marker: invalidates.is_some_and(JsValue::truthy),
            supersedes,
        };
        (rare != RareFacts::default()).then(|| Box::new(rare))
    }
}

/// One non-blank ledger line, as a query sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Ranked<'a> {
    Null,
    /// The parser's message.
    Malformed(String),
    Lesson(Facts<'a>),
}

/// A line read for a query, its tokens added to `tokens`: skimmed when the skim is sure of it,
/// else parsed whole.
pub fn read_line<'a>(line: &'a [u8], tokens: &mut Vec<Cow<'a, [u8]>>) -> Ranked<'a> {
    let start = tokens.len();
    let skimmed = match skim::skim(line) {
        Some(Skim::Null) => Some(Ranked::Null),
        Some(Skim::NotObject) => Some(Ranked::Lesson(Facts {
            tokens: start..start,
            ..Facts::default()
        })),
        Some(Skim::Object(fields)) => skimmed_facts(&fields, tokens).map(Ranked::Lesson),
        None => None,
    };
    skimmed.unwrap_or_else(|| {
        tokens.truncate(start);
        read_line_parsed(line, tokens)
    })
}

/// A line read for a query by parsing it whole (what [`read_line`] agrees with).
pub fn read_line_parsed<'a>(line: &[u8], tokens: &mut Vec<Cow<'a, [u8]>>) -> Ranked<'a> {
    match js::parse_bytes(line) {
        Ok(JsValue::Null) => Ranked::Null,
        Ok(value) => Ranked::Lesson(facts_of(&value, tokens)),
        Err(e) => Ranked::Malformed(e.to_string()),
    }
}

fn facts_of<'a>(lesson: &JsValue, tokens: &mut Vec<Cow<'a, [u8]>>) -> Facts<'a> {
    let start = tokens.len();
    tokens.extend(
        entry::pattern_tokens(lesson)
            .into_iter()
            .map(|t| Cow::Owned(t.into_bytes())),
    );
    let has_tokens = tokens.len() > start;
    let supersedes = supersedes_of(lesson.get("supersedes"));
    let id = (has_tokens || !supersedes.is_empty())
        .then(|| lesson.get("id").and_then(JsValue::as_js_str))
        .flatten()
        .map(|id| Cow::Owned(id.as_bytes().to_vec()));
    let created = match has_tokens {
        false => Cow::Borrowed(&[][..]),
        true => Cow::Owned(created_of(lesson.get("created")).as_bytes().to_vec()),
    };
    Facts {
        tokens: start..tokens.len(),
        id,
        created,
        rare: RareFacts::of(lesson.get("invalidates"), supersedes),
    }
}

/// `l.created || ''`; a non-string one (on which the reference's comparison throws) compares as
/// `String(created)`.
fn created_of(created: Option<&JsValue>) -> JsString {
    match created {
        Some(c) if c.truthy() => c.to_js_string(),
        _ => JsString::new(),
    }
}

fn supersedes_of(value: Option<&JsValue>) -> Vec<JsString> {
    match value {
        Some(JsValue::Array(old)) => old.iter().filter_map(JsValue::as_js_str).cloned().collect(),
        _ => Vec::new(),
    }
}

/// A field's value (JSON the skim checked).
fn parsed(field: Field) -> Option<JsValue> {
    js::parse_bytes(field.raw).ok()
}

/// [`Facts`] from the skim's fields; `None` sends the line to the parser.
fn skimmed_facts<'a>(
    fields: &[Option<Field<'a>>; 5],
    tokens: &mut Vec<Cow<'a, [u8]>>,
) -> Option<Facts<'a>> {
    let [id, created, pattern, invalidates, supersedes] = *fields;
    let start = tokens.len();
    if let Some(pattern) = pattern {
        pattern_tokens(pattern, tokens)?;
    }
    let has_tokens = tokens.len() > start;
    let invalidates = match invalidates {
        None => None,
        Some(field) => Some(parsed(field)?),
    };
    let supersedes = match supersedes {
        None => Vec::new(),
        Some(field) => supersedes_of(Some(&parsed(field)?)),
    };
    let id = match id {
        Some(field) if has_tokens || !supersedes.is_empty() => match field.plain_string() {
            Some(text) => Some(Cow::Borrowed(text)),
            None => parsed(field)?
                .as_js_str()
                .map(|id| Cow::Owned(id.as_bytes().to_vec())),
        },
        _ => None,
    };
    let created = match created {
        Some(field) if has_tokens => match field.plain_string() {
            Some(text) => Cow::Borrowed(text),
            None => Cow::Owned(created_of(Some(&parsed(field)?)).as_bytes().to_vec()),
        },
        _ => Cow::Borrowed(&[][..]),
    };
    Some(Facts {
        tokens: start..tokens.len(),
        id,
        created,
        rare: RareFacts::of(invalidates.as_ref(), supersedes),
    })
}

/// The tokens of a `pattern`: read directly from a plain one (a string, or an array of strings),
/// else through its value.
fn pattern_tokens<'a>(pattern: Field<'a>, out: &mut Vec<Cow<'a, [u8]>>) -> Option<()> {
    if pattern.plain {
        if let Some(one) = pattern.plain_string() {
            ascii_tokens(one, out);
            return Some(());
        }
        let start = out.len();
        if plain_strings(pattern.raw, |item| ascii_tokens(item, out)).is_some() {
            return Some(());
        }
        out.truncate(start);
    }
    let value = parsed(pattern)?;
    out.extend(
        entry::tokens_of_pattern(Some(&value))
            .into_iter()
            .map(|t| Cow::Owned(t.into_bytes())),
    );
    Some(())
}

/// The tokenizer on ASCII text: its runs of letters and digits, lowercased.
fn ascii_tokens<'a>(text: &'a [u8], out: &mut Vec<Cow<'a, [u8]>>) {
    for run in text.split(|b| !b.is_ascii_alphanumeric()) {
        if run.iter().any(u8::is_ascii_uppercase) {
            out.push(Cow::Owned(run.to_ascii_lowercase()));
        } else if !run.is_empty() {
            out.push(Cow::Borrowed(run));
        }
    }
}

/// Each element of a checked JSON array, when all are strings without escapes; `None` at the
/// first that is not.
fn plain_strings<'a>(raw: &'a [u8], mut each: impl FnMut(&'a [u8])) -> Option<()> {
    let inner = raw.strip_prefix(b"[")?.strip_suffix(b"]")?;
    let mut rest = inner.trim_ascii();
    while !rest.is_empty() {
        let body = rest.strip_prefix(b"\"")?;
        let end = memchr::memchr(b'"', body)?;
        each(&body[..end]);
        rest = body[end + 1..].trim_ascii_start();
        if let Some(after) = rest.strip_prefix(b",") {
            rest = after.trim_ascii_start();
        } else if !rest.is_empty() {
            return None;
        }
    }
    Some(())
}

/// A line that `trim` leaves empty (the reference drops those before parsing).
fn is_blank(line: &[u8]) -> bool {
    match line.first() {
        Some(b'{') => false,
        _ => JsString::from(js::decode(line).as_ref()).is_blank(),
    }
}

/// One part of the ledger read: the lines that bear on a query (numbered from the part's
/// start), their tokens (as numbers into `names`: a lesson's facts point into `tokens`), how many
/// lines the part has, and its last non-empty line.
#[derive(Default)]
struct Part<'a> {
    lines: Vec<(usize, Range<usize>, Ranked<'a>)>,
    tokens: Vec<u32>,
    names: Vec<Cow<'a, [u8]>>,
    newlines: usize,
    last: Option<usize>,
}

/// Reads the lines of `bytes[range]` (which starts a line) that bear on a query.
fn read_part(bytes: &[u8], range: Range<usize>) -> Part<'_> {
    let mut part = Part::default();
    let mut numbers: Map<Cow<[u8]>, u32> = Map::default();
    let mut scratch = Vec::new();
    let mut start = range.start;
    let mut number = 1;
    loop {
        let end = memchr::memchr(b'\n', &bytes[start..range.end]).map(|i| start + i);
        let stop = end.unwrap_or(range.end);
        let mut line = &bytes[start..stop];
        if let Some(cut) = line.strip_suffix(b"\r") {
            line = cut;
        }
        if !line.is_empty() {
            part.last = Some(number);
            if !is_blank(line) {
                scratch.clear();
                let mut ranked = read_line(line, &mut scratch);
                let bears = match &mut ranked {
                    Ranked::Lesson(facts) => {
                        let from = part.tokens.len();
                        for token in scratch.drain(..) {
                            let next = part.names.len() as u32;
                            let n = *numbers.entry(token).or_insert_with_key(|token| {
                                part.names.push(token.clone());
                                next
                            });
                            part.tokens.push(n);
                        }
                        facts.tokens = from..part.tokens.len();
                        !facts.tokens.is_empty() || facts.rare.is_some()
                    }
                    _ => true,
                };
                if bears {
                    part.lines.push((number, start..start + line.len(), ranked));
                }
            }
        }
        match end {
            Some(end) => {
                part.newlines += 1;
                number += 1;
                start = end + 1;
            }
            None => return part,
        }
    }
}

/// The ledger cut into `n` ranges of whole lines.
fn split(bytes: &[u8], n: usize) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut start = 0;
    for i in 1..n {
        let target = (bytes.len() * i / n).max(start);
        let Some(at) = memchr::memchr(b'\n', &bytes[target..]) else {
            break;
        };
        let end = target + at + 1;
        ranges.push(start..end);
        start = end;
    }
    ranges.push(start..bytes.len());
    ranges
}

/// Why no index could be built.
#[derive(Debug)]
pub enum Unbuilt {
    /// A worker thread could not be started.
    NoThreads,
    /// More lessons than a lesson number (`u32`) can count.
    TooManyLessons,
}

/// The ledger read in parts, one per core.
fn read_parts(bytes: &[u8]) -> Result<Vec<Part<'_>>, Unbuilt> {
    let workers = match bytes.len() {
        n if n < PARALLEL_FROM => 1,
        _ => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8),
    };
    match split(bytes, workers).as_slice() {
        [only] => Ok(vec![read_part(bytes, only.clone())]),
        ranges => std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|range| {
                    let range = range.clone();
                    std::thread::Builder::new()
                        .stack_size(WORKER_STACK)
                        .spawn_scoped(scope, move || read_part(bytes, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.ok().and_then(|handle| handle.join().ok()))
                .collect::<Option<Vec<Part>>>()
        })
        .ok_or(Unbuilt::NoThreads),
    }
}

/// Little-endian writer of the layout.
struct Out(Vec<u8>);

impl Out {
    fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }
    fn usize(&mut self, n: usize) {
        self.u64(n as u64);
    }
}

/// Appends `bytes` to the heap; where they went.
fn put(heap: &mut Vec<u8>, bytes: &[u8]) -> (usize, usize) {
    heap.extend_from_slice(bytes);
    (heap.len() - bytes.len(), bytes.len())
}

const HEADER: usize = 16 + 8 + 8 + 7 * 8 + 8 + 5 * 8;
const WARNING: usize = 4 * 8;
const LESSON: usize = 6 * 8;
const TOKEN: usize = 4 * 8;

/// The index of the ledger `bytes`, whose identity is `identity`, in its layout.
pub fn build(bytes: &[u8], identity: Freshness) -> Result<Vec<u8>, Unbuilt> {
    let parts = read_parts(bytes)?;
    // Each part's first line number, less one.
    let bases: Vec<usize> = parts
        .iter()
        .scan(0, |before, part| {
            let base = *before;
            *before += part.newlines;
            Some(base)
        })
        .collect();
    let lines = || {
        parts.iter().zip(&bases).flat_map(|(part, base)| {
            part.lines
                .iter()
                .map(move |(n, range, ranked)| (part, base + n, range, ranked))
        })
    };
    // A last line without its newline that is neither blank nor JSON was torn by a crash.
    let last = parts
        .iter()
        .zip(&bases)
        .filter_map(|(part, base)| part.last.map(|n| base + n))
        .next_back();
    let torn = match lines().last() {
        Some((_, n, _, Ranked::Malformed(_)))
            if !bytes.is_empty() && !bytes.ends_with(b"\n") && Some(n) == last =>
        {
            n
        }
        _ => 0,
    };
    let mut out = Out(Vec::with_capacity(HEADER + bytes.len() / 4));
    out.0.resize(HEADER, 0);
    let mut heap: Vec<u8> = Vec::new();
    // The skipped lines, and what lessons do to others.
    let mut warned = 0;
    let mut invalidated: Set<&[u8]> = Set::default();
    let mut superseded_by: Map<&[u8], Vec<&[u8]>> = Map::default();
    for (_, number, _, ranked) in lines() {
        match ranked {
            Ranked::Malformed(_) if number == torn => {}
            // Its kind (1 a null line, 2 a malformed one), its line, its message in the heap.
            Ranked::Null | Ranked::Malformed(_) => {
                let (kind, (at, len)) = match ranked {
                    Ranked::Malformed(e) => (2, put(&mut heap, e.as_bytes())),
                    _ => (1, (0, 0)),
                };
                for n in [kind, number, at, len] {
                    out.usize(n);
                }
                warned += 1;
            }
            Ranked::Lesson(facts) => {
                if let Some(id) = facts.rare.as_ref().and_then(|r| r.invalidates.as_ref()) {
                    invalidated.insert(id.as_bytes());
                }
                for old in facts.rare.iter().flat_map(|r| &r.supersedes) {
                    superseded_by
                        .entry(old.as_bytes())
                        .or_default()
                        .push(facts.id.as_deref().unwrap_or_default());
                }
            }
        }
    }
    // The lessons a query can return, numbered in ledger order; each token's lessons. Tokens
    // are numbered across the parts in the order first met, and sorted at the end.
    let mut numbers: Map<&[u8], u32> = Map::default();
    let mut names: Vec<&[u8]> = Vec::new();
    let mut postings: Vec<Vec<u32>> = Vec::new();
    let local: Vec<Vec<u32>> = parts
        .iter()
        .map(|part| {
            part.names
                .iter()
                .map(|name| {
                    *numbers.entry(name).or_insert_with(|| {
                        names.push(name);
                        postings.push(Vec::new());
                        names.len() as u32 - 1
                    })
                })
                .collect()
        })
        .collect();
    // Many lessons share a date: each `created` is kept once.
    let mut dates: Map<&[u8], (usize, usize)> = Map::default();
    let mut count: u32 = 0;
    for (part, local) in parts.iter().zip(&local) {
        for (_, range, ranked) in &part.lines {
            let Ranked::Lesson(lesson) = ranked else {
                continue;
            };
            let id = lesson.id.as_deref();
            if lesson.tokens.is_empty()
                || lesson.rare.as_ref().is_some_and(|r| r.marker)
                || id.is_some_and(|id| invalidated.contains(id))
            {
                continue;
            }
            let (created_at, created_len) = *dates
                .entry(&lesson.created)
                .or_insert_with(|| put(&mut heap, &lesson.created));
            let by = id.and_then(|id| superseded_by.get(id));
            let by_at = heap.len();
            for id in by.into_iter().flatten() {
                heap.extend_from_slice(&(id.len() as u64).to_le_bytes());
                heap.extend_from_slice(id);
            }
            out.usize(range.start);
            out.usize(range.len());
            out.usize(created_at);
            out.usize(created_len);
            out.usize(by_at);
            out.usize(by.map_or(0, Vec::len));
            for token in &part.tokens[lesson.tokens.clone()] {
                let lessons = &mut postings[local[*token as usize] as usize];
                // A token the lesson repeats counts once.
                if lessons.last() != Some(&count) {
                    lessons.push(count);
                }
            }
            count = count.checked_add(1).ok_or(Unbuilt::TooManyLessons)?;
        }
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_unstable_by_key(|&i| names[i]);
    let mut posted = 0;
    for &i in &order {
        let (at, len) = put(&mut heap, names[i]);
        out.usize(at);
        out.usize(len);
        out.usize(posted);
        out.usize(postings[i].len());
        posted += postings[i].len();
    }
    for &i in &order {
        for n in &postings[i] {
            out.0.extend_from_slice(&n.to_le_bytes());
        }
    }
    out.0.extend_from_slice(&heap);
    let mut header = Out(Vec::with_capacity(HEADER));
    header.0.extend_from_slice(MAGIC);
    header.u64(u64::from(FORMAT));
    // The checksum (written below), the ledger's identity, then the torn line and the counts of
    // the five sections.
    header.u64(0);
    for n in [
        identity.dev,
        identity.ino,
        identity.size,
        identity.mtime as u64,
        identity.mtime_nsec as u64,
        identity.ctime as u64,
        identity.ctime_nsec as u64,
        torn as u64,
        warned as u64,
        u64::from(count),
        names.len() as u64,
        posted as u64,
        heap.len() as u64,
    ] {
        header.u64(n);
    }
    out.0[..HEADER].copy_from_slice(&header.0);
    let sum = checksum(&out.0[32..]);
    out.0[24..32].copy_from_slice(&sum.to_le_bytes());
    Ok(out.0)
}

/// A check of the bytes after the header's checksum field, against a file cut short or damaged
/// and against another version of git-ucg.
fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in env!("CARGO_PKG_VERSION").as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(0x0100_0000_01b3);
        h ^= h >> 29;
    }
    for &b in words.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ bytes.len() as u64
}

/// An index read from its layout: checked whole (magic, version, checksum, section sizes); each
/// value is checked again as it is read.
pub struct View<'a> {
    identity: Freshness,
    torn: usize,
    warnings: &'a [u8],
    lessons: &'a [u8],
    tokens: &'a [u8],
    postings: &'a [u8],
    heap: &'a [u8],
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes.get(at..at.checked_add(8)?)?);
    Some(u64::from_le_bytes(w))
}

fn usize_at(bytes: &[u8], at: usize) -> Option<usize> {
    usize::try_from(u64_at(bytes, at)?).ok()
}

/// A lesson a query keeps: where its line is, its score, and its `superseded_by`.
#[derive(Debug, Clone, PartialEq)]
pub struct KeptLesson {
    pub line: Range<u64>,
    pub score: usize,
    pub created: JsString,
    pub superseded_by: Option<Vec<JsString>>,
}

/// What a query answers: the warnings (in the order given) and the lessons kept, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub warnings: Vec<Warning>,
    pub kept: Vec<KeptLesson>,
}

/// `slice(0, limit)` after `limit || 5`.
fn kept(len: usize, limit: f64) -> usize {
    let limit = if limit == 0.0 || limit.is_nan() {
        5.0
    } else {
        limit.trunc()
    };
    if limit < 0.0 {
        (len as f64 + limit).max(0.0) as usize
    } else {
        limit.min(len as f64) as usize
    }
}

impl<'a> View<'a> {
    /// The index in `bytes`, or `None` when they are not one (of this version).
    pub fn parse(bytes: &'a [u8]) -> Option<View<'a>> {
        if bytes.get(..16)? != MAGIC
            || u64_at(bytes, 16)? != u64::from(FORMAT)
            || u64_at(bytes, 24)? != checksum(bytes.get(32..)?)
        {
            return None;
        }
        let n = |i: usize| u64_at(bytes, 32 + 8 * i);
        let identity = Freshness {
            dev: n(0)?,
            ino: n(1)?,
            size: n(2)?,
            mtime: n(3)? as i64,
            mtime_nsec: n(4)? as i64,
            ctime: n(5)? as i64,
            ctime_nsec: n(6)? as i64,
        };
        let count = |i: usize| usize::try_from(n(7 + i)?).ok();
        let torn = count(0)?;
        let sizes = [
            count(1)?.checked_mul(WARNING)?,
            count(2)?.checked_mul(LESSON)?,
            count(3)?.checked_mul(TOKEN)?,
            count(4)?.checked_mul(4)?,
            count(5)?,
        ];
        let mut at = HEADER;
        let mut sections = [&bytes[..0]; 5];
        for (section, size) in sections.iter_mut().zip(sizes) {
            let end = at.checked_add(size)?;
            *section = bytes.get(at..end)?;
            at = end;
        }
        if at != bytes.len() {
            return None;
        }
        let [warnings, lessons, tokens, postings, heap] = sections;
        Some(View {
            identity,
            torn,
            warnings,
            lessons,
            tokens,
            postings,
            heap,
        })
    }

    /// The ledger the index was built from.
    pub(crate) fn identity(&self) -> Freshness {
        self.identity
    }

    fn heap(&self, at: usize, len: usize) -> Option<&'a [u8]> {
        self.heap.get(at..at.checked_add(len)?)
    }

    /// The lessons (by number) that have this token.
    fn postings(&self, token: &[u8]) -> Option<&'a [u8]> {
        let (mut low, mut high) = (0, self.tokens.len() / TOKEN);
        while low < high {
            let mid = (low + high) / 2;
            let entry = mid * TOKEN;
            let field = |i: usize| usize_at(self.tokens, entry + 8 * i);
            let here = self.heap(field(0)?, field(1)?)?;
            match here.cmp(token) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let at = field(2)?.checked_mul(4)?;
                    return self
                        .postings
                        .get(at..at.checked_add(field(3)?.checked_mul(4)?)?);
                }
            }
        }
        Some(&[])
    }

    /// The answer to `query(pattern, limit)`; `None` when the index contradicts itself.
    pub fn answer(&self, pattern: &JsString, limit: f64, hide_superseded: bool) -> Option<Answer> {
        let mut warnings = Vec::new();
        if self.torn > 0 {
            warnings.push(Warning::Torn(self.torn));
        }
        for entry in self.warnings.chunks_exact(WARNING) {
            let field = |i: usize| usize_at(entry, 8 * i);
            warnings.push(match field(0)? {
                1 => Warning::Null(field(1)?),
                2 => Warning::Malformed(
                    field(1)?,
                    String::from_utf8(self.heap(field(2)?, field(3)?)?.to_vec()).ok()?,
                ),
                _ => return None,
            });
        }
        // Each query token found counts once per time it is asked for.
        let mut asked = entry::tokens(pattern);
        asked.sort_unstable();
        let mut hits: Vec<(u32, usize)> = Vec::new();
        for same in asked.chunk_by(|a, b| a == b) {
            for number in self.postings(same[0].as_bytes())?.chunks_exact(4) {
                let mut w = [0u8; 4];
                w.copy_from_slice(number);
                hits.push((u32::from_le_bytes(w), same.len()));
            }
        }
        hits.sort_unstable_by_key(|(n, _)| *n);
        let mut scored: Vec<KeptLesson> = Vec::new();
        for lesson in hits.chunk_by(|a, b| a.0 == b.0) {
            let number = lesson[0].0;
            let score = lesson.iter().map(|(_, times)| times).sum();
            let entry = usize::try_from(number).ok()?.checked_mul(LESSON)?;
            let field = |i: usize| u64_at(self.lessons, entry + 8 * i);
            let superseded = field(5)?;
            if hide_superseded && superseded > 0 {
                continue;
            }
            let line = field(0)?..field(0)?.checked_add(field(1)?)?;
            let created = self.heap(
                usize::try_from(field(2)?).ok()?,
                usize::try_from(field(3)?).ok()?,
            )?;
            let superseded_by = match superseded {
                0 => None,
                n => Some(self.ids(usize::try_from(field(4)?).ok()?, n)?),
            };
            scored.push(KeptLesson {
                line,
                score,
                created: JsString::from_wtf8(created.to_vec()),
                superseded_by,
            });
        }
        // In ledger order (the numbers'), so the stable sort leaves ties as a scan finds them.
        scored.sort_by(|a, b| {
            b.score
                .cmp(&a.score)
                .then_with(|| js::locale_compare(&b.created, &a.created))
        });
        scored.truncate(kept(scored.len(), limit));
        Some(Answer {
            warnings,
            kept: scored,
        })
    }

    /// `count` ids written at `at` in the heap (each its length, then its bytes).
    fn ids(&self, mut at: usize, count: u64) -> Option<Vec<JsString>> {
        let mut ids = Vec::new();
        for _ in 0..count {
            let len = usize_at(self.heap, at)?;
            at = at.checked_add(8)?;
            ids.push(JsString::from_wtf8(self.heap(at, len)?.to_vec()));
            at = at.checked_add(len)?;
        }
        Some(ids)
    }
}
