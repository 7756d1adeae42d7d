//! Bypasses on record: a commit made, or a push sent, while the gate would have refused it
//! (`git commit --no-verify`, `GIT_UCG_SKIP`) leaves a git note under [`NOTES_REF`] on the commit,
//! naming who, when, how and what was pending. The note's text is this module's format:
//!
//! ```text
//! git-ucg bypass
//! by: A U Thor <author@example.com>
//! at: 2026-12-03T18:30:00Z
//! via: commit
//! pending: 4
//!   red:5f0c8e0d2a71
//!   escalation:…
//! ```
//!
//! One record a paragraph; `git notes append` adds a second record to a commit's note after a
//! blank line. Unknown `key: value` lines are skipped, so a later version may add fields.

/// Where the records live: one note a commit, `git notes --ref ucg-bypass show <commit>`.
pub const NOTES_REF: &str = "refs/notes/ucg-bypass";

/// The line a record starts with.
const HEADER: &str = "git-ucg bypass";
/// How many pending ids a record names; the count says how many there were.
const NAMED: usize = 50;

/// One bypass: the commit it is recorded on, and what its note says.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Bypass {
    pub commit: String,
    /// Who made it: `Name <email>`, as git's identity gives it.
    pub by: String,
    /// When, as `%Y-%m-%dT%H:%M:%SZ`.
    pub at: String,
    /// The git command that went past the gate: `commit`, `merge`, `push to origin main`.
    pub via: String,
    /// How many decisions were waiting (more than [`Self::waiting`] names when over 50).
    pub pending: usize,
    pub waiting: Vec<String>,
}

impl Bypass {
    /// The record as a note's text (newlines and controls in a value become spaces: a value is
    /// one line).
    pub fn render(&self) -> String {
        let line = |value: &str| -> String {
            value
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        };
        let mut out = format!(
            "{HEADER}\nby: {}\nat: {}\nvia: {}\npending: {}\n",
            line(&self.by),
            line(&self.at),
            line(&self.via),
            self.pending
        );
        for id in self.waiting.iter().take(NAMED) {
            out.push_str(&format!("  {}\n", line(id)));
        }
        out
    }
}

/// The records a note on `commit` holds, in order. Text that is not a record (a note someone
/// else wrote under this ref) yields nothing; nothing here fails.
pub fn parse(commit: &str, note: &[u8]) -> Vec<Bypass> {
    let text = String::from_utf8_lossy(note);
    let mut records: Vec<Bypass> = Vec::new();
    for line in text.lines() {
        if line == HEADER {
            records.push(Bypass {
                commit: commit.to_string(),
                ..Default::default()
            });
            continue;
        }
        let Some(record) = records.last_mut() else {
            continue;
        };
        if let Some(id) = line.strip_prefix("  ") {
            record.waiting.push(id.to_string());
        } else if let Some((key, value)) = line.split_once(": ") {
            match key {
                "by" => record.by = value.to_string(),
                "at" => record.at = value.to_string(),
                "via" => record.via = value.to_string(),
                "pending" => record.pending = value.parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    records
}

/// The records made at or after `since` (a timestamp; unset or unreadable: every record), the
/// oldest first. A record whose own time cannot be read is kept: it is not known to be older.
pub fn since(mut records: Vec<Bypass>, since: Option<&str>) -> Vec<Bypass> {
    let time = |at: &str| at.parse::<jiff::Timestamp>().ok();
    if let Some(start) = since.and_then(time) {
        records.retain(|record| time(&record.at).is_none_or(|at| at >= start));
    }
    records.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.commit.cmp(&b.commit)));
    records
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Bypass {
        Bypass {
            commit: "c".repeat(40),
            by: "Ann <ann@example.com>".into(),
            at: "2026-12-03T18:30:00Z".into(),
            via: "commit".into(),
            pending: 2,
            waiting: vec!["red:5f0c8e0d2a71".into(), "escalation:7-3".into()],
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let record = record();
        assert_eq!(
            record.render(),
            "git-ucg bypass\nby: Ann <ann@example.com>\nat: 2026-12-03T18:30:00Z\nvia: commit\npending: 2\n  red:5f0c8e0d2a71\n  escalation:7-3\n"
        );
        assert_eq!(
            parse(&record.commit, record.render().as_bytes()),
            vec![record]
        );
    }

    #[test]
    fn an_appended_note_holds_both_records_and_foreign_text_none() {
        let first = record();
        let mut second = record();
        second.via = "push to origin refs/heads/main".into();
        let note = format!("{}\n{}", first.render(), second.render());
        assert_eq!(parse(&first.commit, note.as_bytes()), vec![first, second]);
        assert!(parse("c", b"a note of someone else's\nby: x\n").is_empty());
    }

    #[test]
    fn since_keeps_what_is_newer_and_what_cannot_be_dated() {
        let mut old = record();
        old.at = "2026-01-01T00:00:00Z".into();
        let mut undated = record();
        undated.at = "yesterday".into();
        let kept = since(
            vec![old.clone(), record(), undated.clone()],
            Some("2026-06-04T19:02:11Z"),
        );
        assert_eq!(kept, vec![record(), undated]);
        assert_eq!(since(vec![old.clone()], None), vec![old]);
    }

    #[test]
    fn a_value_is_one_line() {
        let mut record = record();
        record.by = "Eve\nvia: nothing\u{1b}]0;x\u{7}".into();
        let parsed = parse(&record.commit, record.render().as_bytes());
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].via, "commit");
        assert!(!parsed[0].by.chars().any(char::is_control));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_are_read_without_a_panic(note in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let _ = parse("c", &note);
            let mut with_header = b"git-ucg bypass\n".to_vec();
            with_header.extend(&note);
            proptest::prop_assert!(!parse("c", &with_header).is_empty());
        }

        #[test]
        fn every_record_reads_back(
            by in "[^\n]{0,30}", at in "[0-9TZ:-]{0,25}", via in "[a-z /]{1,30}",
            waiting in proptest::collection::vec("[a-z0-9:._-]{1,20}", 0..60),
        ) {
            let record = Bypass {
                commit: "c".into(),
                by: by.chars().map(|c| if c.is_control() { ' ' } else { c }).collect(),
                at, via, pending: waiting.len(), waiting,
            };
            let parsed = parse("c", record.render().as_bytes());
            proptest::prop_assert_eq!(parsed.len(), 1);
            let mut expected = record;
            expected.waiting.truncate(NAMED);
            proptest::prop_assert_eq!(&parsed[0], &expected);
        }
    }
}
