//! Whether a commit only records answers (docs/product.md §5.2, "an answer is never blocked"):
//! judged from what it changes against its parent, never from the command that made it. Such a
//! commit passes every gate while other decisions still wait, so that answering — in a
//! checkout, on a branch, through a pull, a rebase or a push — never needs a bypass.
//!
//! A commit records only answers when it changes something, and every file it changes is one an
//! answer changes, in the way an answer changes it:
//! - the answers file (`.decisions.json`) and the RED registry: written (the registry's closed
//!   REDs leave it or are tombstoned);
//! - the ledger: only rows' `status` cells turned `resolved`, every other byte kept;
//! - a typed escalation sidecar and a `.budget-<story>.json` turn counter: deleted;
//! - a run folder's decision log: appended to (what was there stays, byte for byte);
//! - `.gitattributes`: only the merge driver's lines added or taken out;
//!
//! and what is pending after it was pending before, the same question from the same place: no
//! item added, reworded or re-opened, and nothing the gate cannot read; and what stopped being
//! pending has a close on record (a sidecar or a RED removed without an answer is not one).

use crate::attributes::{without_ours, ATTRIBUTES_FILE};
use crate::decision_log::DECISION_LOG_FILE;
use crate::decisions::{closed_ids, DECISIONS_FILE};
use crate::escalations::sidecar_story;
use crate::gate::GateInputs;
use crate::pending::{self, Pending, PendingItem};
use crate::reds::REGISTRY_FILE;
use crate::runs::RUNS_ROOT;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use ucg_git::tree::{ChangeKind, PathChange};
use ucg_git::{ArtifactSource, ObjectId, Repository};

/// Why a commit is not one that only records answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAnswerOnly {
    #[error("it changes nothing")]
    Empty,
    #[error("it changes {path}, which no answer changes")]
    Elsewhere { path: String },
    #[error("it changes {path} in a way no answer does: {how}")]
    NotAsAnswered { path: String, how: &'static str },
    #[error("{id} is pending after it and was not, as it is, before it")]
    NewlyPending { id: String },
    #[error("{id} is no longer pending, and no close of it is on record")]
    GoneUnanswered { id: String },
    #[error("what it leaves cannot be judged: {artifact}: {reason}")]
    Unjudgeable { artifact: String, reason: String },
    #[error("it has no parent to be compared with")]
    NoParent,
    #[error("its changes cannot be read: {0}")]
    Unreadable(String),
}

impl NotAnswerOnly {
    /// Whether the commit carried answers among other changes (the refusal then says to split it).
    pub fn mixes_answers(&self, changes: &[PathChange], inputs: &GateInputs) -> bool {
        matches!(self, NotAnswerOnly::Elsewhere { .. })
            && changes
                .iter()
                .any(|c| answer_file(inputs, &c.path).is_some())
    }
}

/// The kinds of file an answer changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnswerFile {
    Answers,
    Registry,
    Ledger,
    Sidecar,
    TurnCounter,
    DecisionLog,
    Attributes,
}

/// Which answer file `path` (from the repository's root, '/'-separated) is, for the run `inputs`
/// locates.
fn answer_file(inputs: &GateInputs, path: &str) -> Option<AnswerFile> {
    let full = inputs.project_root.join(path);
    let name = full.file_name()?.to_str()?;
    let parent = full.parent()?;
    let in_impl_dir = parent == inputs.impl_dir;
    Some(match name {
        _ if full == inputs.ledger => AnswerFile::Ledger,
        DECISIONS_FILE if in_impl_dir => AnswerFile::Answers,
        REGISTRY_FILE if in_impl_dir => AnswerFile::Registry,
        _ if in_impl_dir && sidecar_story(name).is_some() => AnswerFile::Sidecar,
        // `.budget-<story>.json`, the turn counter a budget-overrun's close deletes.
        _ if in_impl_dir && crate::budget::counter_story(name).is_some_and(|s| !s.is_empty()) => {
            AnswerFile::TurnCounter
        }
        DECISION_LOG_FILE if parent.parent()? == inputs.project_root.join(RUNS_ROOT) => {
            AnswerFile::DecisionLog
        }
        ATTRIBUTES_FILE if parent == inputs.project_root => AnswerFile::Attributes,
        _ => return None,
    })
}

/// A side of the change: its tree, and how its pending items are had (enumerated, or kept from
/// an earlier judgement of the same commit).
type ChangeSide<'a, 's> = (
    &'a ArtifactSource<'s>,
    &'a dyn Fn(&ArtifactSource) -> Rc<Pending>,
);

/// Whether the change from `before` to `after` (the files `changes` names) only records answers
/// to the run `inputs` locates; why not, when it does not.
fn judge(
    inputs: &GateInputs,
    (before, pending_before): ChangeSide,
    (after, pending_after): ChangeSide,
    changes: &[PathChange],
) -> Result<(), NotAnswerOnly> {
    if changes.is_empty() {
        return Err(NotAnswerOnly::Empty);
    }
    for change in changes {
        let Some(file) = answer_file(inputs, &change.path) else {
            return Err(NotAnswerOnly::Elsewhere {
                path: change.path.clone(),
            });
        };
        if let Err(how) = changed_as_answered(file, change, inputs, before, after) {
            return Err(NotAnswerOnly::NotAsAnswered {
                path: change.path.clone(),
                how,
            });
        }
    }
    let found_after = pending_after(after);
    if let Some(blocker) = found_after.blockers.first() {
        return Err(NotAnswerOnly::Unjudgeable {
            artifact: blocker.artifact.clone(),
            reason: blocker.reason.clone(),
        });
    }
    if let Some(sidecar) = found_after.unreadable.first() {
        return Err(NotAnswerOnly::Unjudgeable {
            artifact: sidecar.clone(),
            reason: "an escalation sidecar that cannot be read".into(),
        });
    }
    let found_before = pending_before(before);
    let was_pending =
        |item: &PendingItem| found_before.items.iter().any(|b| same_question(b, item));
    if let Some(item) = found_after.items.iter().find(|item| !was_pending(item)) {
        return Err(NotAnswerOnly::NewlyPending {
            id: item.id.clone(),
        });
    }
    // What stopped being pending was answered: a close of it is on record after the change.
    let closed = closed_ids(after.read(&inputs.impl_dir.join(DECISIONS_FILE)).as_deref());
    let still_pending = |id: &str| found_after.items.iter().any(|item| item.id == id);
    let gone = found_before
        .items
        .iter()
        .find(|item| !still_pending(&item.id) && !closed.contains(&item.id));
    gone.map_or(Ok(()), |item| {
        Err(NotAnswerOnly::GoneUnanswered {
            id: item.id.clone(),
        })
    })
}

/// A refusal to count a commit (or the staged one, `commit: None`) as answers only.
#[derive(Debug, Clone)]
pub struct Refused {
    pub commit: Option<ObjectId>,
    pub why: NotAnswerOnly,
    /// It carried answers among other changes: the refusal says to commit them on their own.
    pub mixes_answers: bool,
}

fn refused(commit: Option<ObjectId>, why: NotAnswerOnly) -> Refused {
    Refused {
        commit,
        why,
        mixes_answers: false,
    }
}

/// The commit the index would make (the index's tree, `git write-tree` in `dir`, against
/// `HEAD`'s): whether it only records answers to the run `inputs` locates.
pub fn judge_staged(repo: &Repository, dir: &Path, inputs: &GateInputs) -> Result<(), Refused> {
    let unreadable = |e: ucg_git::Error| refused(None, NotAnswerOnly::Unreadable(e.to_string()));
    let head = ucg_git::repo::head(repo).ok_or_else(|| {
        refused(
            None,
            NotAnswerOnly::Unreadable("there is no HEAD commit".into()),
        )
    })?;
    let index = ucg_git::index_tree(dir).map_err(unreadable)?;
    let root = &inputs.project_root;
    let before = ArtifactSource::of_commit(repo, head, root).map_err(unreadable)?;
    let after = ArtifactSource::of_tree(repo, index, root, "the index").map_err(unreadable)?;
    let changes = after.changes_from(Some(&before)).map_err(unreadable)?;
    let enumerate =
        |source: &ArtifactSource| Rc::new(pending::enumerate(&inputs.pending(), source));
    let judged = judge(
        inputs,
        (&before, &enumerate),
        (&after, &enumerate),
        &changes,
    );
    judged.map_err(|why| Refused {
        commit: None,
        mixes_answers: why.mixes_answers(&changes, inputs),
        why,
    })
}

/// The commits `tip` reaches that none of `known` does (`git rev-list tip --not known…` in
/// `dir`): whether each only records answers against one of its parents. None at all is not an
/// answer (a push of commits the remote has under another name carries no answer).
pub fn judge_commits(
    repo: &Repository,
    dir: &Path,
    tip: ObjectId,
    known: &[String],
    inputs: &GateInputs,
) -> Result<(), Refused> {
    let commits = ucg_git::new_commits(repo, dir, &tip.to_string(), known)
        .map_err(|e| refused(Some(tip), NotAnswerOnly::Unreadable(e.to_string())))?;
    if commits.is_empty() {
        return Err(refused(Some(tip), NotAnswerOnly::Empty));
    }
    // A commit's parent is usually the commit judged before it: its pending items are kept.
    let enumerated = Enumerated::default();
    for commit in commits {
        judge_commit(repo, commit, inputs, &enumerated)?;
    }
    Ok(())
}

/// The pending items of the commits judged so far, by commit.
type Enumerated = RefCell<HashMap<ObjectId, Rc<Pending>>>;

/// One commit: answers only against one of its parents (a merge bringing a teammate's answers
/// is answers only against the side that did not have them).
fn judge_commit(
    repo: &Repository,
    commit: ObjectId,
    inputs: &GateInputs,
    enumerated: &Enumerated,
) -> Result<(), Refused> {
    let unreadable =
        |e: ucg_git::Error| refused(Some(commit), NotAnswerOnly::Unreadable(e.to_string()));
    let root = &inputs.project_root;
    let after = ArtifactSource::of_commit(repo, commit, root).map_err(unreadable)?;
    let parents = ucg_git::tree::parents(repo, commit).map_err(unreadable)?;
    let of = |id: ObjectId| {
        move |source: &ArtifactSource| {
            let cached = enumerated.borrow().get(&id).cloned();
            cached.unwrap_or_else(|| {
                let found = Rc::new(pending::enumerate(&inputs.pending(), source));
                enumerated.borrow_mut().insert(id, found.clone());
                found
            })
        }
    };
    let mut first_refusal = None;
    for parent in parents {
        let before = ArtifactSource::of_commit(repo, parent, root).map_err(unreadable)?;
        let changes = after.changes_from(Some(&before)).map_err(unreadable)?;
        let judged = judge(
            inputs,
            (&before, &of(parent)),
            (&after, &of(commit)),
            &changes,
        );
        let Err(why) = judged else {
            return Ok(());
        };
        first_refusal.get_or_insert(Refused {
            commit: Some(commit),
            mixes_answers: why.mixes_answers(&changes, inputs),
            why,
        });
    }
    Err(first_refusal.unwrap_or_else(|| refused(Some(commit), NotAnswerOnly::NoParent)))
}

/// The same question from the same place: what an answer leaves alone (a defer on record changes
/// only the item's answer).
fn same_question(a: &PendingItem, b: &PendingItem) -> bool {
    a.id == b.id
        && a.source == b.source
        && a.kind == b.kind
        && a.artifact == b.artifact
        && a.decision_needed == b.decision_needed
        && a.evidence == b.evidence
        && a.origin == b.origin
        && a.row == b.row
        && a.occurrence == b.occurrence
}

/// Whether `change` to an answer file of kind `file` is one an answer makes.
fn changed_as_answered(
    file: AnswerFile,
    change: &PathChange,
    inputs: &GateInputs,
    before: &ArtifactSource,
    after: &ArtifactSource,
) -> Result<(), &'static str> {
    let path = inputs.project_root.join(&change.path);
    let read = |source: &ArtifactSource| {
        source
            .read_checked(&path)
            .map(Option::unwrap_or_default)
            .map_err(|_| "it cannot be read as a file")
    };
    match (file, change.kind) {
        (AnswerFile::Answers, ChangeKind::Added | ChangeKind::Modified) => Ok(()),
        (AnswerFile::Registry, ChangeKind::Modified) => Ok(()),
        (AnswerFile::Sidecar | AnswerFile::TurnCounter, ChangeKind::Deleted) => Ok(()),
        (AnswerFile::Ledger, ChangeKind::Modified) => {
            let (old, new) = (read(before)?, read(after)?);
            statuses_resolved(&old, &new)
                .then_some(())
                .ok_or("more than rows' status cells turned resolved")
        }
        (AnswerFile::DecisionLog, ChangeKind::Added | ChangeKind::Modified) => {
            let (old, new) = (read(before)?, read(after)?);
            new.starts_with(&old)
                .then_some(())
                .ok_or("a decision log is only appended to")
        }
        (AnswerFile::Attributes, _) => {
            let (old, new) = (read(before)?, read(after)?);
            (without_ours(&old).0 == without_ours(&new).0)
                .then_some(())
                .ok_or("more than the merge driver's lines")
        }
        (AnswerFile::Registry | AnswerFile::Ledger, ChangeKind::Added) => {
            Err("an answer does not create it")
        }
        (AnswerFile::Registry | AnswerFile::Ledger, ChangeKind::Deleted) => {
            Err("an answer does not delete it")
        }
        (AnswerFile::Answers | AnswerFile::DecisionLog, ChangeKind::Deleted) => {
            Err("answers on record are not deleted")
        }
        (AnswerFile::Sidecar | AnswerFile::TurnCounter, _) => {
            Err("a close deletes it, and nothing else")
        }
    }
}

/// Whether `new` is `old` with some ledger rows' `status` cells turned `resolved`, every other
/// byte kept (the one edit a close makes to the ledger).
fn statuses_resolved(old: &[u8], new: &[u8]) -> bool {
    let (Ok(old), Ok(new)) = (std::str::from_utf8(old), std::str::from_utf8(new)) else {
        return false;
    };
    // Where each line of `old` starts, and the status cell each row line holds.
    let statuses: HashMap<usize, _> = crate::ledger::rows_with_status(old)
        .into_iter()
        .filter_map(|(_, range)| range)
        .map(|range| (old[..range.start].rfind('\n').map_or(0, |at| at + 1), range))
        .collect();
    let (old_lines, new_lines) = (old.split_inclusive('\n'), new.split_inclusive('\n'));
    if old_lines.clone().count() != new_lines.clone().count() {
        return false;
    }
    let mut line_start = 0;
    for (was, is) in old_lines.zip(new_lines) {
        let start = line_start;
        line_start += was.len();
        if was == is {
            continue;
        }
        let Some(cell) = statuses.get(&start) else {
            return false;
        };
        let (cell_start, cell_end) = (cell.start - start, cell.end - start);
        let flipped = format!("{}resolved{}", &was[..cell_start], &was[cell_end..]);
        if is != flipped {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_files_by_path() {
        let a = "_bmad-output/implementation-artifacts";
        let inputs = GateInputs {
            project_root: "/p".into(),
            impl_dir: Path::new("/p").join(a),
            ledger: Path::new("/p").join(a).join("deferred-work.md"),
        };
        let kind = |path: &str| answer_file(&inputs, path);
        for (path, file) in [
            (format!("{a}/.decisions.json"), AnswerFile::Answers),
            (format!("{a}/.preflight-reds.json"), AnswerFile::Registry),
            (format!("{a}/deferred-work.md"), AnswerFile::Ledger),
            (format!("{a}/escalation-7-2.json"), AnswerFile::Sidecar),
            (format!("{a}/.budget-7-2.json"), AnswerFile::TurnCounter),
            (
                "_bmad-output/ultracode-goal/run-1/.decision-log.md".into(),
                AnswerFile::DecisionLog,
            ),
            (".gitattributes".into(), AnswerFile::Attributes),
        ] {
            assert_eq!(kind(&path), Some(file), "{path}");
        }
        for elsewhere in [
            "src/main.rs",
            ".decisions.json",
            "x/.gitattributes",
            "_bmad-output/ultracode-goal/.decision-log.md",
            &format!("{a}/.budget-.json"),
            &format!("{a}/sub/.decisions.json"),
            &format!("{a}/run-status.json"),
        ] {
            assert_eq!(kind(elsewhere), None, "{elsewhere}");
        }
    }

    #[test]
    fn a_ledger_edit_is_status_cells_turned_resolved() {
        let old = "# Ledger\n\n| id | status | decision |\n|---|---|---|\n| d1 | open | a |\n| d2 | open | b |\n";
        let one = old.replacen("| d1 | open |", "| d1 | resolved |", 1);
        let both = one.replacen("| d2 | open |", "| d2 | resolved |", 1);
        assert!(statuses_resolved(old.as_bytes(), old.as_bytes()));
        assert!(statuses_resolved(old.as_bytes(), one.as_bytes()));
        assert!(statuses_resolved(old.as_bytes(), both.as_bytes()));
        for not in [
            old.replacen("| d1 | open |", "| d1 | closed |", 1),
            old.replacen("| a |", "| A |", 1),
            old.replacen("# Ledger", "# Ledger!", 1),
            format!("{old}\n"),
            one.replacen(
                "| d2 | open | b |",
                "| d2 | resolved | b |\n| d3 | open | c |",
                1,
            ),
        ] {
            assert!(!statuses_resolved(old.as_bytes(), not.as_bytes()), "{not}");
        }
    }
}
