//! An epic as git and the run's artifacts describe it: its branch, its stories in sprint order, and
//! each story's commit range (docs/formats/ucg.md §3.3): baseline .. the story's end marker, else the
//! next later story's baseline, else the epic's tip. Every doubt about a range is recorded as a
//! problem of its story, never papered over.

use crate::error::{Error, Result};
use crate::{decision_log, heartbeat, markers, runs, sprint};
use std::path::{Path, PathBuf};
use ucg_git::ArtifactSource;
use ucg_git::{ObjectId, Repository};

/// What `epic` and `diff` need located.
pub struct EpicInputs {
    pub impl_dir: PathBuf,
    pub project_root: PathBuf,
    pub branch_prefix: String,
    pub protected_branches: Vec<String>,
    /// `--epic`, when given.
    pub epic: Option<String>,
}

/// Where a story's range ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndSource {
    /// `.commit-<story>`.
    CommitMarker,
    /// The next later story's baseline.
    NextBaseline,
    /// The epic branch's tip (or HEAD).
    #[default]
    Tip,
}

/// A story's range; the default is a story whose range was not asked for.
#[derive(Debug, Clone, Default)]
pub struct StoryRange {
    pub id: String,
    pub status: Option<String>,
    pub verdict: Option<String>,
    pub baseline: Option<ObjectId>,
    pub end: Option<ObjectId>,
    pub end_source: EndSource,
    /// Set when the range can be used: baseline and end resolved, baseline an ancestor of end.
    pub usable: bool,
    pub problems: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Epic {
    pub id: String,
    pub branch: String,
    pub branch_exists: bool,
    pub checked_out: bool,
    /// The epic's tip: its branch, else HEAD.
    pub tip: Option<ObjectId>,
    /// The first protected branch that exists, and how many commits the tip is ahead of it.
    pub base_branch: Option<String>,
    pub ahead: Option<usize>,
    pub stories: Vec<StoryRange>,
    pub problems: Vec<String>,
}

impl Epic {
    pub fn story(&self, id: &str) -> Option<&StoryRange> {
        self.stories.iter().find(|s| s.id == id)
    }

    /// The accumulated range: the first story's baseline .. the tip.
    pub fn accumulated(&self) -> std::result::Result<(ObjectId, ObjectId), String> {
        let first = (self.stories.iter().find_map(|s| s.baseline))
            .ok_or_else(|| format!("no story of epic {} has a usable baseline", self.id))?;
        let tip = self
            .tip
            .ok_or("the epic has no tip: no branch and no HEAD")?;
        Ok((first, tip))
    }
}

/// How much of the epic to work out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// Everything `git ucg epic` shows: each story's ancestry check, the commits ahead.
    Full,
    /// Only what one range needs: the named story's range, or with `None` the first story's
    /// baseline (the accumulated range). Other stories carry no range. Callers check the ancestry
    /// of the range they use ([`check_range`]).
    RangeOf(Option<String>),
}

/// Builds the epic from the artifacts and the repository.
///
/// Artifacts come from `source` (the work tree, or a commit's tree for `--rev`); with a commit,
/// `tip` is that commit, so ranges end where the teammate's run stands.
pub fn load(
    repo: &Repository,
    inputs: &EpicInputs,
    source: &ArtifactSource,
    tip_override: Option<ObjectId>,
    detail: Detail,
) -> Result<Epic> {
    let impl_dir = &inputs.impl_dir;
    let read_text = |path: &Path| {
        source
            .read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let beat = heartbeat::read(source, impl_dir);
    let current_story =
        read_text(&impl_dir.join(markers::CURRENT_STORY_FILE)).map(|s| s.trim().to_string());
    let head_branch = ucg_git::repo::current_branch(repo);
    let id = inputs
        .epic
        .clone()
        .or_else(|| beat.epic.clone())
        .or_else(|| {
            current_story
                .as_deref()
                .and_then(sprint::epic_of)
                .map(str::to_string)
        })
        .or_else(|| {
            head_branch
                .as_deref()
                .and_then(|b| b.strip_prefix(&inputs.branch_prefix))
                .map(str::to_string)
        })
        .ok_or(Error::UnknownEpic)?;
    let branch = format!("{}{id}", inputs.branch_prefix);
    let mut problems = Vec::new();

    let branch_tip = ucg_git::commit::branch_tip(repo, &branch).ok();
    let head = ucg_git::repo::head(repo);
    let tip = match (tip_override, branch_tip) {
        (Some(tip), _) | (None, Some(tip)) => Some(tip),
        (None, None) => {
            problems.push(format!(
                "branch {branch} does not exist; ranges end at HEAD"
            ));
            head
        }
    };
    let checked_out = head_branch.as_deref() == Some(branch.as_str());
    // The first protected branch that exists.
    let protected = match detail {
        Detail::Full => inputs.protected_branches.iter().find_map(|name| {
            let tip = ucg_git::commit::branch_tip(repo, name).ok()?;
            Some((name.clone(), tip))
        }),
        Detail::RangeOf(_) => None,
    };
    let (base_branch, ahead) = match (tip, protected) {
        (Some(tip), Some((name, base_tip))) => {
            let ahead = repo
                .merge_base(base_tip, tip)
                .ok()
                .flatten()
                .and_then(|base| ucg_git::commits_in_range(repo, base.detach(), tip).ok())
                .map(|commits| commits.len());
            (Some(name), ahead)
        }
        _ => (None, None),
    };

    // Stories: sprint-status.yaml in file order, else the heartbeat, else the markers present.
    let sprint_text = read_text(&impl_dir.join(sprint::SPRINT_FILE))
        .or_else(|| read_text(&inputs.project_root.join(sprint::FALLBACK_PATH)));
    let sprint_rows = sprint_text
        .map(|t| sprint::stories_of(&sprint::development_status(&t), &id))
        .unwrap_or_default();
    let mut ids: Vec<(String, Option<String>)> = sprint_rows
        .into_iter()
        .map(|(story, status)| (story, Some(status)))
        .collect();
    // The heartbeat's stories and the markers are another epic's unless they say this one.
    if ids.is_empty() && beat.epic.as_deref() == Some(id.as_str()) {
        ids = beat
            .stories
            .iter()
            .map(|(s, _)| (s.clone(), None))
            .collect();
    }
    if ids.is_empty() {
        // The stories of the `.baseline-*` markers present, sorted.
        ids = source
            .list(impl_dir)
            .iter()
            .filter_map(|name| markers::baseline_story(name))
            .filter(|s| sprint::epic_of(s) == Some(id.as_str()))
            .map(|s| (s.to_string(), None))
            .collect();
        ids.sort();
    }
    // An epic named on the command line that neither git nor the artifacts know is a mistake,
    // not an empty epic: say what exists.
    if inputs.epic.is_some() && branch_tip.is_none() && ids.is_empty() && tip_override.is_none() {
        let refs = repo.references().ok();
        let prefixed = format!("refs/heads/{}", inputs.branch_prefix);
        let mut known: Vec<String> = (refs.iter())
            .filter_map(|refs| refs.prefixed(prefixed.as_str()).ok())
            .flatten()
            .flatten()
            .filter_map(|r| {
                let name = r.name().shorten().to_string();
                name.strip_prefix(&inputs.branch_prefix).map(str::to_string)
            })
            .collect();
        known.extend(beat.epic.clone());
        known.sort();
        known.dedup();
        return Err(Error::NoSuchEpic { id, branch, known });
    }
    let story_ids: Vec<String> = ids.iter().map(|(s, _)| s.clone()).collect();

    let recorded = match detail {
        Detail::Full => {
            let runs_root = inputs.project_root.join(runs::RUNS_ROOT);
            runs::candidates_for_epic(&source.list(&runs_root), &id)
                .into_iter()
                .find_map(|run| {
                    read_text(&runs_root.join(run).join(decision_log::DECISION_LOG_FILE))
                })
                .map(|log| decision_log::recorded_verdicts(&log))
                .unwrap_or_default()
        }
        Detail::RangeOf(_) => Vec::new(),
    };
    let logged = decision_log::verdicts_for(&recorded, &story_ids);

    // A story without an end marker ends at the next later baseline: baselines are read on
    // demand (and once), so a single range reads only the markers it needs.
    let mut baselines: Vec<Option<Marker>> = vec![None; story_ids.len()];
    let marker = |name: String, what| read_marker(repo, source, impl_dir, &name, what);
    let mut baseline_at = |i: usize| -> Marker {
        let baseline = || marker(markers::baseline_file(&story_ids[i]), "baseline");
        baselines[i].get_or_insert_with(baseline).clone()
    };
    let wanted = |i: usize, story: &str| match &detail {
        Detail::Full => true,
        Detail::RangeOf(Some(target)) => story == target,
        Detail::RangeOf(None) => i == 0,
    };
    let mut stories = Vec::new();
    let mut first_with_baseline_found = false;
    for (i, (story, status)) in ids.into_iter().enumerate() {
        // For the accumulated range, the first story with a baseline is the one that matters.
        let accumulating = detail == Detail::RangeOf(None) && !first_with_baseline_found;
        if !wanted(i, &story) && !accumulating {
            stories.push(StoryRange {
                id: story,
                status,
                ..StoryRange::default()
            });
            continue;
        }
        let Marker {
            id: baseline,
            problems: mut story_problems,
            ..
        } = baseline_at(i);
        first_with_baseline_found |= baseline.is_some();
        let end_marker = marker(markers::commit_file(&story), "end marker");
        if end_marker.present {
            story_problems.extend(end_marker.problems);
        }
        let next_baseline = (i + 1..story_ids.len()).find_map(|j| baseline_at(j).id);
        let (end, end_source) = match (end_marker.id, next_baseline) {
            (Some(end), _) => (Some(end), EndSource::CommitMarker),
            (None, Some(next)) => (Some(next), EndSource::NextBaseline),
            (None, None) => (tip, EndSource::Tip),
        };
        let mut usable = baseline.is_some() && end.is_some();
        if let (Some(base), Some(end), Detail::Full) = (baseline, end, &detail) {
            if let Err(problem) = check_range(repo, base, end) {
                story_problems.push(problem);
                usable = false;
            }
        }
        let verdict = logged[i].clone().or_else(|| {
            beat.stories
                .iter()
                .find(|(s, _)| *s == story)
                .and_then(|(_, v)| v.clone())
        });
        stories.push(StoryRange {
            id: story,
            status,
            verdict,
            baseline,
            end,
            end_source,
            usable,
            problems: story_problems,
        });
    }
    Ok(Epic {
        id,
        branch,
        branch_exists: branch_tip.is_some(),
        checked_out,
        tip,
        base_branch,
        ahead,
        stories,
        problems,
    })
}

/// A range is used only when its base is an ancestor of its end.
pub fn check_range(
    repo: &Repository,
    base: ObjectId,
    end: ObjectId,
) -> std::result::Result<(), String> {
    match ucg_git::is_ancestor(repo, base, end).map_err(|e| e.to_string())? {
        true => Ok(()),
        false => Err(format!(
            "baseline {} is not an ancestor of its end {}",
            short(base),
            short(end)
        )),
    }
}

/// A marker as read: its commit when it resolves, what is wrong with it, whether the file is there.
#[derive(Debug, Clone)]
struct Marker {
    id: Option<ObjectId>,
    problems: Vec<String>,
    present: bool,
}

/// Reads a marker and resolves it; problems say what is wrong with it.
fn read_marker(
    repo: &Repository,
    source: &ArtifactSource,
    impl_dir: &Path,
    name: &str,
    what: &str,
) -> Marker {
    let read = source.read(&impl_dir.join(name));
    let Some(text) = read.map(|b| String::from_utf8_lossy(&b).into_owned()) else {
        return Marker {
            id: None,
            problems: vec![format!("no {what} ({name} is missing)")],
            present: false,
        };
    };
    let mut problems = Vec::new();
    if let Some(problem) = markers::form_problem(&text) {
        problems.push(format!("{name} {problem}"));
    }
    let id = markers::marker_sha(&text).and_then(|sha| {
        ucg_git::resolve_commit(repo, sha)
            .inspect_err(|e| problems.push(format!("{name}: {e}")))
            .ok()
    });
    Marker {
        id,
        problems,
        present: true,
    }
}

pub fn short(id: ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

/// What a story's range holds.
pub struct StoryChanges {
    pub commits: Vec<ucg_git::CommitInfo>,
    /// Files changed, insertions, deletions; `None` with `--fast`.
    pub counts: Option<(usize, u64, u64)>,
}

/// Commits and counts of a usable range; a failure becomes one more problem of the story.
pub fn story_changes(
    repo: &Repository,
    story: &mut StoryRange,
    fast: bool,
    counted: &mut ucg_git::linecache::LineCountCache,
) -> Option<StoryChanges> {
    let (Some(base), Some(end), true) = (story.baseline, story.end, story.usable) else {
        return None;
    };
    let result = (|| -> ucg_git::Result<StoryChanges> {
        let commits = ucg_git::commits_in_range(repo, base, end)?;
        let counts = if fast {
            None
        } else {
            let mut cache = ucg_git::blob_cache(repo)?;
            let files = ucg_git::tree_changes(repo, &mut cache, base, end, true)?;
            let lines = ucg_git::line_counts(repo, &mut cache, counted, &files)?;
            let (ins, del) = lines.iter().flatten().fold((0u64, 0u64), |(i, d), (a, r)| {
                (i + u64::from(*a), d + u64::from(*r))
            });
            Some((files.len(), ins, del))
        };
        Ok(StoryChanges { commits, counts })
    })();
    result
        .inspect_err(|problem| story.problems.push(problem.to_string()))
        .ok()
}
