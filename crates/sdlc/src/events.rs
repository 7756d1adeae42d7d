//! `events.jsonl` (docs/formats/sdlc.md A.4): the append-only run ledger, read leniently — a line
//! is an event when it is a JSON object with a string `event`; anything else is kept as a
//! malformed line with the reason, never an error. Test fixtures write minimal lines (no `schema`,
//! no `ts`), so only `event` is required here; `audit` checks the full line schema.

use serde_json::{Map, Value};

/// The run's event log, in its directory.
pub const EVENTS_FILE: &str = "events.jsonl";

/// One event as read, with the fields the algorithms use.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event: String,
    /// `phase` when it is an integer in 0..=12; `None` for null, absent or anything else.
    pub phase: Option<u8>,
    pub ts: Option<String>,
    pub raw: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Event(Event),
    Malformed(String),
}

/// The ledger as read: its lines (1-based numbers), blank lines skipped.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Log {
    pub lines: Vec<(usize, Line)>,
    /// The file does not end with a newline: its last line was torn by a crash (or is being
    /// written); appending must not extend it.
    pub torn_tail: bool,
}

pub(crate) fn parse_line(bytes: &[u8]) -> Line {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Line::Malformed("not UTF-8".into());
    };
    let doc: Map<String, Value> = match serde_json::from_str(text) {
        Ok(Value::Object(doc)) => doc,
        Ok(_) => return Line::Malformed("not a JSON object".into()),
        Err(e) => return Line::Malformed(format!("not JSON ({e})")),
    };
    let Some(event) = doc.get("event").and_then(Value::as_str).map(str::to_string) else {
        return Line::Malformed("no string \"event\"".into());
    };
    let phase = doc
        .get("phase")
        .and_then(Value::as_u64)
        .filter(|p| *p <= 12)
        .map(|p| p as u8);
    let ts = doc.get("ts").and_then(Value::as_str).map(str::to_string);
    Line::Event(Event {
        event,
        phase,
        ts,
        raw: doc,
    })
}

pub fn parse(bytes: &[u8]) -> Log {
    parse_filtered(bytes, |_| true)
}

/// Parses only the lines `wanted` accepts (by their raw bytes); the others are skipped unread.
/// Listing many runs reads only what could be a phase event.
pub fn parse_filtered(bytes: &[u8], wanted: impl Fn(&[u8]) -> bool) -> Log {
    let mut log = Log {
        torn_tail: !bytes.is_empty() && !bytes.ends_with(b"\n"),
        ..Log::default()
    };
    for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) || !wanted(line) {
            continue;
        }
        log.lines.push((index + 1, parse_line(line)));
    }
    log
}

/// Whether a raw line could be a phase event (a cheap test before parsing).
pub fn may_be_phase_event(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"phase.").is_some()
}

/// `parse_filtered(bytes, may_be_phase_event)`, reading only around the phase events: one search
/// for `phase.` over the whole log (not one per line), each hit's line found from it, the lines
/// between counted (for their numbers) but not looked at. A run's log is mostly other events, and
/// listing runs reads every log.
pub fn parse_phase_lines(bytes: &[u8]) -> Log {
    static PHASE: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    let phase = PHASE.get_or_init(|| memchr::memmem::Finder::new(b"phase."));
    let mut log = Log {
        torn_tail: !bytes.is_empty() && !bytes.ends_with(b"\n"),
        ..Log::default()
    };
    // The line numbers are counted up to `counted`, which starts line `number`.
    let (mut counted, mut number) = (0, 1);
    let mut from = 0;
    while let Some(hit) = phase.find(&bytes[from..]).map(|at| from + at) {
        let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |at| at + 1);
        let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |at| hit + at);
        number += memchr::memchr_iter(b'\n', &bytes[counted..start]).count();
        counted = start;
        let line = &bytes[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        log.lines.push((number, parse_line(line)));
        from = end;
    }
    log
}

impl Log {
    pub fn events(&self) -> impl Iterator<Item = &Event> {
        self.lines.iter().filter_map(|(_, line)| match line {
            Line::Event(event) => Some(event),
            Line::Malformed(_) => None,
        })
    }

    /// `line N: reason` for every malformed line.
    pub(crate) fn malformed(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|(n, line)| match line {
                Line::Malformed(why) => Some(format!("line {n}: {why}")),
                Line::Event(_) => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_lines_are_the_filtered_lines() {
        let bytes = b"{\"event\":\"phase.started\",\"phase\":1}\r\n\n{\"x\":\"phase.phase.\"}\nno\nphase.\r\n{\"event\":\"phase.completed\",\"phase\":1}";
        assert_eq!(
            parse_phase_lines(bytes),
            parse_filtered(bytes, may_be_phase_event)
        );
        assert_eq!(parse_phase_lines(bytes).lines.len(), 4);
        assert_eq!(
            parse_phase_lines(b""),
            parse_filtered(b"", may_be_phase_event)
        );
    }

    #[test]
    fn lenient_lines() {
        let log = parse(b"{\"event\":\"phase.completed\",\"phase\":2}\n\n{oops\n[1]\n{\"phase\":3}\n\xff\n{\"event\":\"x\",\"phase\":\"4\"}");
        assert!(log.torn_tail);
        assert_eq!(log.events().count(), 2);
        assert_eq!(log.events().next().unwrap().phase, Some(2));
        assert_eq!(log.events().nth(1).unwrap().phase, None);
        assert_eq!(log.malformed().len(), 4);
        assert!(log.malformed()[0].starts_with("line 3: not JSON"));
    }
}
