//! What `sdlc list` showed for each run, kept under the git directory (`ucg/sdlc-list`): a
//! listing reads every run's log for its phase events, and most runs have not changed since the
//! last one. A run's entry holds while its `meta.json` and `events.jsonl` have the identity they
//! had when it was made — device, inode, size, modification and change times (any write changes
//! one; a file absent then must be absent now) — and while the clock is within the seconds its
//! status holds for (a running run turns stale once, `run::status_holds`). Any other run is read
//! and summarized again and its entry replaced. Only runs whose two files are regular files (or
//! absent) are kept. The file is replaced by a rename and never synced: lost or damaged, it is
//! rebuilt.
//!
//! It is in the caches' one layout (`ucg_store::stamp::encode_line_cache`): the runs directory,
//! then a line for each run (a JSON array: its directory name, the seconds its status holds
//! over, its line and its JSON document), then the stamps of each run's two files, in the same
//! order.

use super::loaded::Summary;
use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use ucg_store::stamp::{decode_counted_line_cache, encode_line_cache, parse_stamp_line};
use ucg_store::{Freshness, Stamp};

/// Its name under `<git dir>/ucg/`.
pub const FILE: &str = "sdlc-list";

/// Its header: the layout and its version (bump when what a run's line or document shows
/// changes), and git-ucg's.
const HEADER: &str = concat!("git-ucg sdlc-list 3 ", env!("CARGO_PKG_VERSION"));

/// The files of a run whose stamps an entry keeps.
const STAMPED: [&str; 2] = [super::run::META_FILE, super::events::EVENTS_FILE];

/// The stamps of a run's `meta.json` and `events.jsonl`.
pub(crate) type Stamps = (Stamp, Stamp);

/// The stamps of the run in `dir`, when both of its files are regular files or absent.
pub fn stamps(dir: &Path) -> Option<Stamps> {
    let one = |name: &str| match std::fs::metadata(dir.join(name)) {
        Ok(meta) if meta.is_file() => Some(Some(Freshness::of(&meta))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        _ => None,
    };
    Some((one(STAMPED[0])?, one(STAMPED[1])?))
}

/// One run's line and JSON document (as text), and when they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    stamps: Stamps,
    /// The seconds of the clock they hold for: `[from, until)`, unbounded where `None`.
    from: Option<i64>,
    until: Option<i64>,
    pub line: String,
    pub doc: String,
}

/// An entry's line in the file: everything but its stamps.
type Row = (String, Option<i64>, Option<i64>, String, String);

impl Entry {
    /// The entry for a run summarized from files with these stamps, its status holding over
    /// `holds`.
    pub fn new(summary: &Summary, stamps: Stamps, holds: (Option<i64>, Option<i64>)) -> Entry {
        Entry {
            stamps,
            from: holds.0,
            until: holds.1,
            line: summary.line.clone(),
            doc: summary.doc.to_string(),
        }
    }

    fn holds(&self, stamps: &Stamps, now: i64) -> bool {
        self.stamps == *stamps
            && self.from.is_none_or(|from| from <= now)
            && self.until.is_none_or(|until| now < until)
    }
}

/// The entries of one runs directory, by run directory name.
#[derive(Debug, Default, PartialEq)]
pub struct ListCache {
    runs: PathBuf,
    entries: BTreeMap<String, Entry>,
}

impl ListCache {
    /// An empty cache for the runs directory `runs`.
    pub fn new(runs: &Path) -> ListCache {
        ListCache {
            runs: runs.to_path_buf(),
            entries: BTreeMap::new(),
        }
    }

    /// The cache in `bytes`, when they are one of this version for the runs directory `runs`.
    pub fn parse(bytes: &[u8], runs: &Path) -> Option<ListCache> {
        let (fields, stamps) = decode_counted_line_cache(bytes, HEADER)?;
        let (kept_for, rows) = fields.split_first()?;
        if *kept_for != runs.as_os_str().as_bytes() || stamps.len() != 2 * rows.len() {
            return None;
        }
        let stamp = |line: &[u8]| parse_stamp_line(line).map(|(stamp, _)| stamp);
        let mut entries = BTreeMap::new();
        for (row, pair) in rows.iter().zip(stamps.chunks(2)) {
            let (id, from, until, line, doc): Row = serde_json::from_slice(row).ok()?;
            let entry = Entry {
                stamps: (stamp(pair.first()?)?, stamp(pair.get(1)?)?),
                from,
                until,
                line,
                doc,
            };
            entries.insert(id, entry);
        }
        Some(ListCache {
            runs: runs.to_path_buf(),
            entries,
        })
    }

    /// The file's bytes; empty when the runs directory's path cannot be written in it (a newline
    /// in it), which reads as no cache.
    pub fn to_bytes(&self) -> Vec<u8> {
        let rows: Vec<Vec<u8>> = self
            .entries
            .iter()
            .map(|(id, e)| serde_json::to_vec(&(id, e.from, e.until, &e.line, &e.doc)))
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        let mut fields = vec![self.runs.as_os_str().as_bytes()];
        fields.extend(rows.iter().map(Vec::as_slice));
        let stamps: Vec<(PathBuf, Stamp)> = self
            .entries
            .iter()
            .flat_map(|(id, entry)| {
                let dir = self.runs.join(id);
                let [meta, events] = STAMPED.map(|name| dir.join(name));
                [(meta, entry.stamps.0), (events, entry.stamps.1)]
            })
            .collect();
        encode_line_cache(HEADER, &fields, &stamps).unwrap_or_default()
    }

    /// The entry of run `id` that holds for files with these stamps at `now` (seconds).
    pub fn get(&self, id: &str, stamps: &Stamps, now: i64) -> Option<&Entry> {
        self.entries.get(id).filter(|e| e.holds(stamps, now))
    }

    pub fn insert(&mut self, id: String, entry: Entry) {
        self.entries.insert(id, entry);
    }
}
