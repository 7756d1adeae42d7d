//! What `git ucg status --format markdown` shows, read as the reference's `status_render.py`
//! reads it (docs/formats/ucg.md §3, Appendix A): every read tolerant, every file named by the
//! module that owns its format. The layout is the command layer's (`render::status_markdown`).

use crate::decision_log::DECISION_LOG_FILE;
use crate::escalations::{self, Found};
use crate::heartbeat::HEARTBEAT_FILE;
use crate::ids::{is_python_space, py_strip};
use crate::ledger::{self, Row};
use crate::markers;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use ucg_git::ArtifactSource;
use ucg_store::pyjson::{self, Object, Value};

/// How many non-blank lines of the decision log the tail shows.
const TAIL_LINES: usize = 12;

/// Where the reads start.
pub struct ReferenceInputs<'s> {
    /// The work tree, or the tree of a commit (`--rev`).
    pub source: &'s ArtifactSource<'s>,
    pub impl_dir: &'s Path,
    pub run_dir: Option<&'s Path>,
    pub runs_root: &'s Path,
    pub deferred_work: &'s Path,
}

/// Everything the document shows, read.
pub struct ReferenceStatus {
    /// The heartbeat's path, and whether there is one: without it the document is only the runs.
    pub heartbeat_path: PathBuf,
    pub run: Option<RunRead>,
    /// Run folders (those with a decision log), by name, and whether each has its run report.
    pub runs: Vec<(String, bool)>,
}

/// A run's artifacts, read.
pub struct RunRead {
    /// The heartbeat object; `None` when it is unreadable, blank, not JSON, not an object, or `{}`.
    pub heartbeat: Option<Object>,
    /// For each story entry of the heartbeat with a story: its baseline and commit markers' shas.
    pub markers: Vec<StoryMarkers>,
    /// By story.
    pub escalations: BTreeMap<String, Found>,
    pub ledger_rows: Vec<Row>,
    /// The decision log's last non-blank lines, right-trimmed.
    pub decision_log_tail: Vec<String>,
}

/// A story's markers, by the story as Python's `str()` prints it.
pub struct StoryMarkers {
    pub story: String,
    pub baseline: Option<String>,
    pub commit: Option<String>,
}

pub fn read(inputs: &ReferenceInputs) -> ReferenceStatus {
    let source = inputs.source;
    let heartbeat_path = inputs.impl_dir.join(HEARTBEAT_FILE);
    let run = source.exists(&heartbeat_path).then(|| {
        // A blank heartbeat is no JSON, and `{}` shows nothing.
        let heartbeat = (source.read(&heartbeat_path))
            .and_then(|bytes| pyjson::object_in(&bytes))
            .filter(|object| !object.is_empty());
        RunRead {
            markers: story_markers(inputs, heartbeat.as_ref()),
            heartbeat,
            escalations: escalations_of(source, inputs.impl_dir),
            ledger_rows: source
                .read(inputs.deferred_work)
                .and_then(|b| String::from_utf8(b).ok())
                .map(|text| ledger::rows(&text))
                .unwrap_or_default(),
            decision_log_tail: inputs
                .run_dir
                .and_then(|run| source.read(&run.join(DECISION_LOG_FILE)))
                .and_then(|b| String::from_utf8(b).ok())
                .map(|text| tail(&text))
                .unwrap_or_default(),
        }
    });
    ReferenceStatus {
        heartbeat_path,
        run,
        runs: crate::decision_log::run_folders(source, inputs.runs_root),
    }
}

/// The heartbeat's story entries that are objects.
pub fn story_entries(heartbeat: Option<&Object>) -> Vec<&Object> {
    heartbeat
        .and_then(|s| s.get("stories"))
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_object).collect())
        .unwrap_or_default()
}

fn story_markers(inputs: &ReferenceInputs, heartbeat: Option<&Object>) -> Vec<StoryMarkers> {
    let marker = |name: String| markers::read_sha(inputs.source, inputs.impl_dir, &name);
    story_entries(heartbeat)
        .into_iter()
        .filter_map(|entry| entry.get("story").filter(|v| v.is_truthy()))
        .map(|story| {
            let story = pyjson::py_str(story);
            StoryMarkers {
                baseline: marker(markers::baseline_file(&story)),
                commit: marker(markers::commit_file(&story)),
                story,
            }
        })
        .collect()
}

fn escalations_of(source: &ArtifactSource, impl_dir: &Path) -> BTreeMap<String, Found> {
    let mut names = source.list(impl_dir);
    names.sort();
    escalations::collect(&names, |name| source.read(&impl_dir.join(name)))
}

fn tail(text: &str) -> Vec<String> {
    let non_blank: Vec<String> = ledger::py_splitlines(text)
        .into_iter()
        .filter(|l| !py_strip(l).is_empty())
        .map(|l| l.trim_end_matches(is_python_space).to_string())
        .collect();
    non_blank[non_blank.len().saturating_sub(TAIL_LINES)..].to_vec()
}
