//! What `sdlc list` showed for each run, kept under the git directory (`ucg/sdlc-list.json`): a
//! listing reads every run's log for its phase events, and most runs have not changed since the
//! last one. A run's entry holds while its `meta.json` and `events.jsonl` have the identity they
//! had when it was made — device, inode, size, modification and change times (any write changes
//! one; a file absent then must be absent now) — and while the clock is within the seconds its
//! status holds for (a running run turns stale once, `run::status_holds`). Any other run is read
//! and summarized again and its entry replaced. Only runs whose two files are regular files (or
//! absent) are kept. The file is replaced by a rename and never synced: lost or damaged, it is
//! rebuilt.

use super::loaded::Summary;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use ucg_store::{Freshness, Stamp};

/// Its name under `<git dir>/ucg/`.
pub const FILE: &str = "sdlc-list.json";

/// Bump when the layout, or what a run's line or document shows, changes.
const VERSION: u64 = 2;

/// The stamps of a run's `meta.json` and `events.jsonl`.
pub(crate) type Stamps = (Stamp, Stamp);

/// The stamps of the run in `dir`, when both of its files are regular files or absent.
pub fn stamps(dir: &Path) -> Option<Stamps> {
    let one = |name: &str| match std::fs::metadata(dir.join(name)) {
        Ok(meta) if meta.is_file() => Some(Some(Freshness::of(&meta))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        _ => None,
    };
    Some((one("meta.json")?, one("events.jsonl")?))
}

/// One run's line and JSON document (as text), and when they hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    stamps: Stamps,
    /// The seconds of the clock they hold for: `[from, until)`, unbounded where `None`.
    from: Option<i64>,
    until: Option<i64>,
    pub line: String,
    pub doc: String,
}

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
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListCache {
    version: String,
    runs: PathBuf,
    entries: HashMap<String, Entry>,
}

fn version() -> String {
    format!("{VERSION} {}", env!("CARGO_PKG_VERSION"))
}

impl ListCache {
    /// An empty cache for the runs directory `runs`.
    pub fn new(runs: &Path) -> ListCache {
        ListCache {
            version: version(),
            runs: runs.to_path_buf(),
            entries: HashMap::new(),
        }
    }

    /// The cache in `bytes`, when they are one of this version for the runs directory `runs`.
    pub fn parse(bytes: &[u8], runs: &Path) -> Option<ListCache> {
        serde_json::from_slice::<ListCache>(bytes)
            .ok()
            .filter(|cache| cache.version == version() && cache.runs == runs)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The entry of run `id` that holds for files with these stamps at `now` (seconds).
    pub fn get(&self, id: &str, stamps: &Stamps, now: i64) -> Option<&Entry> {
        self.entries.get(id).filter(|e| e.holds(stamps, now))
    }

    pub fn insert(&mut self, id: String, entry: Entry) {
        self.entries.insert(id, entry);
    }
}
