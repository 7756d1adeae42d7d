//! Recording and applying the operator's answers (docs/product.md §4). The answer is recorded first —
//! `.decisions.json`, read-modify-write keyed by id — and then applied: a closed RED leaves the
//! registry through the `reds apply --from-sidecar` path, a closed escalation's typed sidecar is
//! deleted (and a budget-overrun's turn counter), a closed ledger row's `status` cell turns
//! `resolved`. Application works from every close on record, so a close recorded by a pass that
//! died before applying it is applied by the next one without asking.

use crate::answer::{merge_pieces, now_stamp, Action, Answer, MergedEntries};
use crate::decision_log::{append_section, one_line, DECISION_LOG_FILE};
use crate::decisions::{AnswersFile, EntryPiece, IdRefs, DECISIONS_FILE};
use crate::error::{Error, Result};
use crate::ledger;
use crate::merge::CONTESTED;
use crate::pending::{self, Artifacts, Pending, PendingInputs, Source};
use std::path::{Path, PathBuf};
use ucg_git::ArtifactSource;
use ucg_store::DirLock;

/// What applying one close cleared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Applied {
    pub id: String,
    pub source: Source,
    /// For people: what changed on disk.
    pub cleared: String,
    /// The files it wrote or deleted (or, in a dry run, would have).
    #[serde(skip)]
    pub changed: Vec<Changed>,
}

/// A file the pass wrote, deleted or appended to (or, in a dry run, would have), by the path the
/// pass knows it under.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Changed {
    pub path: PathBuf,
    pub change: Change,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Written,
    Deleted,
    Appended,
}

impl Change {
    pub fn name(self) -> &'static str {
        match self {
            Change::Written => "written",
            Change::Deleted => "deleted",
            Change::Appended => "appended",
        }
    }
}

fn changed(path: PathBuf, change: Change) -> Changed {
    Changed { path, change }
}

/// The ledger with the `status` cell of each open decision row whose id is in `closed` turned
/// `resolved`; every other byte unchanged. `ledger_name` is the ledger's id path. Returns the new
/// text and the ids flipped (in row order).
pub(crate) fn flip_ledger_rows(
    text: &str,
    ledger_name: &str,
    closed: &dyn Fn(&str) -> bool,
) -> (String, Vec<String>) {
    let mut edits = Vec::new();
    let mut flipped = Vec::new();
    for (cells, status) in ledger::cells_with_status(text, &["source", "status", "reason"]) {
        let (Some(span), ["decision", "open", reason]) = (status, cells.as_slice()) else {
            continue;
        };
        let id = crate::ids::mint("decision", ledger_name, reason);
        if closed(&id) {
            edits.push(span);
            flipped.push(id);
        }
    }
    // One pass over the text (replacing in place from the end moved the rest of a long ledger
    // once per row flipped).
    let mut out = String::with_capacity(text.len() + edits.len() * "resolved".len());
    let mut copied = 0;
    for span in edits {
        out.push_str(text.get(copied..span.start).unwrap_or_default());
        out.push_str("resolved");
        copied = span.end;
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    (out, flipped)
}

/// Where the pass reads and writes.
pub struct Pass {
    pub project_root: PathBuf,
    /// Where a symlinked answers file, registry or ledger may point besides its own directory.
    pub bounds_root: Option<PathBuf>,
    pub impl_dir: PathBuf,
    pub ledger: PathBuf,
    /// The run folder whose decision log gets the pass's section.
    pub log_dir: Option<PathBuf>,
    pub dry_run: bool,
    /// The pass commits once and the process ends with it (not the interactive pass): the
    /// answers document, the artifacts and the answers are left to the exit instead of being
    /// freed value by value (for a long project's file, a fifth of the pass).
    pub once: bool,
    /// Who answers (`user.email`), recorded with each answer as `by`.
    pub by: Option<String>,
}

/// What the pass did.
#[derive(Default)]
pub struct Outcome {
    pub recorded: Vec<Answer>,
    pub applied: Vec<Applied>,
    /// What is still pending after the last commit.
    pub after: Option<Pending>,
    /// How many of `recorded` and `applied` the decision log already holds.
    logged: (usize, usize),
    /// Whether this pass's heading is in the decision log.
    log_started: bool,
    /// Every file written, deleted or appended to, once each, in the order first touched.
    pub changed: indexmap::IndexSet<Changed, foldhash::fast::RandomState>,
    /// The earlier answers this pass replaced.
    pub replaced: Vec<Replaced>,
}

/// An answer on record that a new one replaced: what it said, and who gave it when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub id: String,
    pub action: String,
    pub answer: String,
    /// Who and when, as far as the entry says (another writer's entries may say neither).
    pub by: Option<String>,
    pub at: Option<String>,
}

impl Replaced {
    /// `close "24 hours" by ann@x at 2026-…`, for the hand-back and the log; who or when left
    /// out where the entry does not say.
    pub fn describe(&self) -> String {
        let mut said = format!("{} \"{}\"", self.action, self.answer);
        for (word, said_so) in [(" by ", &self.by), (" at ", &self.at)] {
            if let Some(text) = said_so {
                said.extend([word, text]);
            }
        }
        said
    }
}

fn inputs(pass: &Pass) -> PendingInputs<'_> {
    PendingInputs {
        project_root: &pass.project_root,
        impl_dir: &pass.impl_dir,
        ledger: &pass.ledger,
    }
}

pub fn enumerate(pass: &Pass) -> Pending {
    pending::enumerate(&inputs(pass), &ArtifactSource::WorkTree)
}

/// [`enumerate`], each item without an answer offered the answer of an earlier wording of its
/// question (`pending::offer_similar`) at `threshold`.
pub fn enumerate_offering(pass: &Pass, threshold: f64) -> Pending {
    pending::enumerate_offering(&inputs(pass), &ArtifactSource::WorkTree, threshold)
}

/// The answers with each short id made whole: an id that is not one the run knows stands for the
/// ledger decision whose row id it is (`d2`), else the single known id whose 12-hex hash it is, or
/// begins, or whose whole text it begins. Several such
/// ids are an error listing them; none leaves the id as given (unknown ids are refused later).
fn expand_ids(answers: &[Answer], pending: &Pending, known: &IdRefs) -> Result<Vec<Answer>> {
    answers
        .iter()
        .map(|answer| {
            let given = answer.id.as_str();
            if given.is_empty() || known.contains(given) {
                return Ok(answer.clone());
            }
            // A ledger row's own id names its decision exactly.
            let row: Vec<&str> = pending
                .items
                .iter()
                .filter(|i| i.row.as_deref() == Some(given))
                .map(|i| i.id.as_str())
                .collect();
            let mut matching: Vec<&str> = match row.is_empty() {
                false => row,
                true => known
                    .iter()
                    .copied()
                    .filter(|id| pending::handle_of(id).starts_with(given) || id.starts_with(given))
                    .collect(),
            };
            matching.sort_unstable();
            matching.dedup();
            match matching[..] {
                [] => Ok(answer.clone()),
                [one] => Ok(Answer {
                    id: one.to_string(),
                    ..answer.clone()
                }),
                _ => Err(Error::AmbiguousId {
                    given: given.to_string(),
                    matching: matching.iter().map(|id| id.to_string()).collect(),
                }),
            }
        })
        .collect()
}

/// A close records the decision made: a blank answer closes nothing, on every path (the
/// interactive pass asks again; flags and answer files are refused). A defer may stay answerless.
fn check_answered(answers: &[Answer]) -> Result<()> {
    let blank_close =
        |a: &&Answer| a.action == Action::Close && crate::answer::says_nothing(&a.answer);
    answers.iter().find(blank_close).map_or(Ok(()), |blank| {
        Err(Error::BlankAnswer {
            id: blank.id.clone(),
        })
    })
}

/// Every id answered must be one the run waits on, a RED still in the registry, or an id already
/// on record (answering again replaces the answer, so a rerun is harmless).
fn check_known(known: &IdRefs, answered_before: &IdRefs, answers: &[Answer]) -> Result<()> {
    let known = |id: &str| known.contains(id) || answered_before.contains(id);
    let unknown: Vec<&str> = answers
        .iter()
        .map(|a| a.id.as_str())
        .filter(|id| !known(id))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    // Name a few: a wrong answers file can hold thousands.
    let mut named = unknown[..unknown.len().min(5)].join(", ");
    if unknown.len() > 5 {
        named.push_str(&format!(" and {} more", unknown.len() - 5));
    }
    Err(Error::NotPending { named })
}

/// Refuses, naming it, an answers file the pass would refuse to write over: a guided pass checks
/// before it asks anything.
pub fn check_answers_file(pass: &Pass) -> Result<()> {
    read_answers_file(pass).map(drop)
}

/// The answers file as the pass reads it: entry by entry (a long project's file is never one tree
/// of values in memory), or the refusal that names it.
fn read_answers_file(pass: &Pass) -> Result<AnswersFile> {
    let path = pass.impl_dir.join(DECISIONS_FILE);
    let refuse = |reason: String| Error::AnswersUnwritable {
        path: path.clone(),
        reason,
    };
    let bytes =
        ucg_store::read_optional(&path).map_err(|e| refuse(format!("it cannot be read ({e})")))?;
    AnswersFile::read(bytes).map_err(|c| refuse(c.reason))
}

/// Under the artifact directory's lock: checks the answers, records them, and applies every close
/// on record whose artifact is still there.
pub fn commit(pass: &Pass, answers: &[Answer], outcome: &mut Outcome) -> Result<()> {
    check_answered(answers)?;
    let at = now_stamp();
    let stamped: Vec<Answer> = answers
        .iter()
        .map(|answer| Answer {
            by: answer.by.clone().or_else(|| pass.by.clone()),
            at: answer.at.clone().or_else(|| Some(at.clone())),
            ..answer.clone()
        })
        .collect();
    let answers = &stamped[..];
    if !pass.impl_dir.is_dir() {
        return check_known(&IdRefs::default(), &IdRefs::default(), answers);
    }
    let lock = ucg_store::lock_dir(&pass.impl_dir)?;
    // The answers (a long project's file is large) are parsed while the artifacts are read and
    // enumerated: the items do not depend on the answers, which are laid over them afterwards.
    let (file, found) = std::thread::scope(|scope| {
        let doc = std::thread::Builder::new()
            .stack_size(ucg_store::pyjson::STACK_SIZE)
            .spawn_scoped(scope, || read_answers_file(pass))
            .map_err(Error::Thread)?;
        let (artifacts, _) =
            Artifacts::read_without_answers(&inputs(pass), &ArtifactSource::WorkTree, false);
        let found = pending::enumerate_unanswered(&inputs(pass), &artifacts);
        if pass.once {
            std::mem::forget(artifacts);
        }
        let doc = doc
            .join()
            .map_err(|_| Error::Internal("reading the answers"))??;
        Ok::<_, Error>((doc, found))
    })?;
    let entries = file.entries();
    // The ids the run waits on: an answer must name one (or one answered before).
    let known: IdRefs = found
        .items
        .iter()
        .map(|i| i.id.as_str())
        .chain(found.registry_ids.iter().map(String::as_str))
        .collect();
    // A short form of an id (its 12-hex hash, a unique prefix) is the item it names — a pending
    // one, or one answered before (to change its answer).
    let on_record: IdRefs = known
        .iter()
        .copied()
        .chain(entries.iter().filter_map(|e| e.id.as_deref()))
        .collect();
    let mut expanded = expand_ids(answers, &found, &on_record)?;
    // An answer keeps the question it answered; an escalation's, the occurrence.
    let by_id: std::collections::HashMap<&str, &pending::PendingItem, foldhash::fast::RandomState> =
        match expanded.is_empty() {
            true => Default::default(),
            false => found.items.iter().map(|i| (i.id.as_str(), i)).collect(),
        };
    for answer in &mut expanded {
        let Some(item) = by_id.get(answer.id.as_str()) else {
            continue;
        };
        if item.source == Source::Escalation {
            answer.occurrence.clone_from(&item.occurrence);
        }
        answer.kind = Some(item.kind.clone());
        answer.source = Some(item.origin.clone());
        answer.decision_needed = Some(item.decision_needed.clone());
    }
    let answers = &expanded[..];
    // Answered before: answering again replaces the answer (so a rerun is harmless).
    let MergedEntries {
        pieces,
        answered_before,
        closed,
    } = merge_pieces(entries, answers);
    check_known(&known, &answered_before, answers)?;
    // What each replaced answer said (the last entry of its id), for the hand-back and the log.
    for answer in answers
        .iter()
        .filter(|a| answered_before.contains(a.id.as_str()))
    {
        let earlier = entries
            .iter()
            .rev()
            .find(|e| e.id.as_deref() == Some(answer.id.as_str()))
            .and_then(|e| file.value(e));
        let field = |key: &str| {
            earlier
                .as_ref()
                .and_then(|v| v.as_object()?.get(key)?.as_str().map(str::to_string))
        };
        outcome.replaced.push(Replaced {
            id: answer.id.clone(),
            action: field("action").unwrap_or_else(|| "?".into()),
            answer: field("answer").unwrap_or_default(),
            by: field("by"),
            at: field("at"),
        });
    }
    if !answers.is_empty() {
        if !pass.dry_run {
            let bounds = || pass.bounds_root.clone().into_iter().collect();
            let target = ucg_store::write_target(&pass.impl_dir, DECISIONS_FILE, bounds)?;
            ucg_store::write_atomic_with(&lock, &target, |out| file.write_to(&pieces, out))?;
        }
        let decisions = changed(pass.impl_dir.join(DECISIONS_FILE), Change::Written);
        outcome.changed.insert(decisions);
    }
    outcome.recorded.extend_from_slice(answers);
    // The answers on record now, read as the next read of the file will read them, from the
    // entries that bear on an item (few: a long file is mostly about items gone).
    let bearing = {
        let relevant = pending::relevance(&found);
        let bears = |piece: &&EntryPiece| match piece {
            EntryPiece::Kept(index) => entries
                .get(*index)
                .is_some_and(|e| e.id.as_deref().is_some_and(&relevant)),
            EntryPiece::New(_) => true,
        };
        let bearing: Vec<EntryPiece> = pieces.iter().filter(bears).cloned().collect();
        file.render(&bearing)
    };
    let (answers_now, _, _) =
        pending::recorded(&inputs(pass), Some(bearing.as_bytes()), &found, false);
    let found = pending::with_answers(found, &answers_now);
    let after = apply(pass, &lock, found, &closed, outcome)?;
    if pass.once {
        std::mem::forget(closed);
        std::mem::forget((pieces, file));
    }
    outcome.after = Some(after);
    Ok(())
}

/// Applies the closes on record (`closed_ids`) to the artifacts still carrying them (`pending`, as
/// enumerated under the lock). Returns what is still pending afterwards. The registry is
/// rewritten on this thread while the escalation files and the ledger are cleared on another.
fn apply(
    pass: &Pass,
    lock: &DirLock,
    mut pending: Pending,
    closed_ids: &IdRefs,
    outcome: &mut Outcome,
) -> Result<Pending> {
    let applied_before = outcome.applied.len();
    let root = pass.bounds_root.as_deref();
    let (reds, files) = std::thread::scope(|scope| {
        let files = scope.spawn(|| apply_files(pass, root, lock, &pending, closed_ids));
        let reds = apply_reds(pass, lock, &pending, closed_ids);
        let files = files
            .join()
            .unwrap_or(Err(Error::Internal("clearing artifacts")));
        (reds, files)
    });
    // Whatever was cleared is reported (and logged), even when the other half failed.
    let note = |done: Vec<Applied>, outcome: &mut Outcome| {
        for applied in &done {
            for change in &applied.changed {
                outcome.changed.insert(change.clone());
            }
        }
        outcome.applied.extend(done);
    };
    let (reds, files) = match (reds, files) {
        (Ok(reds), Ok(files)) => (reds, files),
        (Ok(done), Err(error)) | (Err(error), Ok(done)) => {
            note(done, outcome);
            return Err(error);
        }
        (Err(error), Err(_)) => return Err(error),
    };
    note(reds, outcome);
    note(files, outcome);
    // What is left: everything not just cleared (a dry run clears nothing on disk, and says so).
    let cleared: std::collections::HashSet<&str> = outcome.applied[applied_before..]
        .iter()
        .map(|a| a.id.as_str())
        .collect();
    pending.items.retain(|i| !cleared.contains(i.id.as_str()));
    Ok(pending)
}

/// Closed REDs leave the registry through the registry writer, as `reds apply --from-sidecar`.
fn apply_reds(
    pass: &Pass,
    lock: &DirLock,
    pending: &Pending,
    closed_ids: &IdRefs,
) -> Result<Vec<Applied>> {
    let registry_name = crate::reds::REGISTRY_FILE;
    let cleared: Vec<String> = pending
        .registry_ids
        .iter()
        .filter(|id| closed_ids.contains(id.as_str()))
        .cloned()
        .collect();
    if !cleared.is_empty() && !pass.dry_run {
        crate::registry::write_locked(
            &|| pass.bounds_root.clone(),
            &pass.impl_dir,
            None,
            Some(closed_ids),
            lock,
        )?;
    }
    Ok(cleared
        .into_iter()
        .map(|id| Applied {
            id,
            source: Source::Red,
            cleared: format!("removed from {registry_name}, tombstone recorded"),
            changed: vec![changed(pass.impl_dir.join(registry_name), Change::Written)],
        })
        .collect())
}

/// Closed escalations lose their typed sidecar (the raw marker stays) and, for a budget overrun,
/// their turn counter — only when the close answered the occurrence the sidecar holds now (an
/// escalation's `action` is laid over it only then); closed ledger rows get their `status` cell
/// flipped and nothing else.
fn apply_files(
    pass: &Pass,
    root: Option<&Path>,
    lock: &DirLock,
    pending: &Pending,
    closed_ids: &IdRefs,
) -> Result<Vec<Applied>> {
    let closed = |id: &str| closed_ids.contains(id);
    let escalations: Vec<&pending::PendingItem> = pending
        .items
        .iter()
        .filter(|i| i.source == Source::Escalation && closed(&i.id))
        .filter(|i| i.action.as_deref() == Some("close"))
        .collect();
    // Deleting a file mostly waits on the disk (a file system mounted with `discard` trims the
    // freed blocks before `unlink` returns): a long list is deleted by several threads at once,
    // while the ledger is edited on a thread of its own.
    let deleters = (escalations.len() / DELETED_PER_THREAD).clamp(1, DELETING_THREADS);
    let share = escalations.len().div_ceil(deleters).max(1);
    let joined = |thread: std::thread::ScopedJoinHandle<Result<Vec<Applied>>>| {
        thread
            .join()
            .unwrap_or(Err(Error::Internal("clearing artifacts")))
    };
    let closed = &closed;
    std::thread::scope(|scope| {
        let thread = || std::thread::Builder::new().name("ucg-clear".into());
        let ledger =
            thread().spawn_scoped(scope, || flip_ledger(pass, root, lock, pending, closed));
        let mut shares = escalations.chunks(share);
        let first = shares.next().unwrap_or_default();
        let others: Vec<_> = shares
            .map(|items| {
                let deleting = thread().spawn_scoped(scope, move || delete_sidecars(pass, items));
                (items, deleting)
            })
            .collect();
        let first = delete_sidecars(pass, first);
        // A thread that could not be started leaves its work to this one.
        let others: Vec<_> = others
            .into_iter()
            .map(|(items, deleting)| match deleting {
                Ok(deleting) => joined(deleting),
                Err(_) => delete_sidecars(pass, items),
            })
            .collect();
        let ledger = match ledger {
            Ok(ledger) => joined(ledger),
            Err(_) => flip_ledger(pass, root, lock, pending, closed),
        };
        // In the order a single pass reports them; the first failure is the error.
        let mut all = first?;
        for other in others {
            all.extend(other?);
        }
        all.extend(ledger?);
        Ok(all)
    })
}

/// How many closed escalations make it worth one more thread deleting their files, and how many
/// threads at most (measured: 250 deletions took 19 ms on one thread, 6 ms on eight).
const DELETED_PER_THREAD: usize = 16;
const DELETING_THREADS: usize = 8;

/// Deletes the closed escalations' typed sidecars and, for a budget overrun, their turn counters.
fn delete_sidecars(pass: &Pass, items: &[&pending::PendingItem]) -> Result<Vec<Applied>> {
    let mut applied = Vec::with_capacity(items.len());
    for item in items {
        let file_name = file_name_of(Path::new(&item.artifact));
        let sidecar = pass.impl_dir.join(&file_name);
        let mut cleared = vec![file_name.clone()];
        let mut files = vec![changed(sidecar.clone(), Change::Deleted)];
        // `.budget-<story>.json` beside `escalation-<story>.json`.
        let budget = crate::escalations::sidecar_story(&file_name)
            .filter(|_| item.kind == "budget-overrun")
            .map(|story| sidecar.with_file_name(crate::budget::counter_file(story)));
        if !pass.dry_run {
            remove(&sidecar)?;
        }
        if let Some(budget) = budget.filter(|b| b.exists()) {
            if !pass.dry_run {
                remove(&budget)?;
            }
            files.push(changed(budget.clone(), Change::Deleted));
            cleared.push(file_name_of(&budget));
        }
        applied.push(Applied {
            id: item.id.clone(),
            source: Source::Escalation,
            cleared: format!("deleted {}", cleared.join(" and ")),
            changed: files,
        });
    }
    Ok(applied)
}

/// Turns the `status` cell of each closed open decision row of the ledger to `resolved`.
fn flip_ledger(
    pass: &Pass,
    root: Option<&Path>,
    lock: &DirLock,
    pending: &Pending,
    closed: &dyn Fn(&str) -> bool,
) -> Result<Vec<Applied>> {
    let Some(first) = pending
        .items
        .iter()
        .find(|i| i.source == Source::Decision && i.kind != CONTESTED && closed(&i.id))
    else {
        return Ok(Vec::new());
    };
    // The file the edit replaces (a symlink within bounds is followed), locked in its own
    // directory before it is read: read, flip and write are one step for other writers.
    let dir = ucg_store::dir_of(&pass.ledger);
    let name = file_name_of(&pass.ledger);
    let bounds = || root.map(Path::to_path_buf).into_iter().collect();
    let target = ucg_store::write_target(dir, &name, bounds)?;
    let target_dir = ucg_store::dir_of(&target);
    let own_lock;
    let same_dir = match (target_dir.canonicalize(), pass.impl_dir.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => target_dir == pass.impl_dir,
    };
    let ledger_lock = if same_dir {
        lock
    } else {
        own_lock = ucg_store::lock_dir(target_dir)?;
        &own_lock
    };
    let text = ucg_store::read_text(&target).map_err(|e| Error::io("read", &target, e))?;
    let (edited, flipped) = flip_ledger_rows(&text, &first.artifact, closed);
    if !pass.dry_run && edited != text {
        ucg_store::write_atomic(ledger_lock, &target, edited.as_bytes())?;
    }
    let written: Vec<Changed> = (edited != text)
        .then(|| changed(pass.ledger.clone(), Change::Written))
        .into_iter()
        .collect();
    Ok(flipped
        .into_iter()
        .map(|id| Applied {
            id,
            source: Source::Decision,
            cleared: format!("{}: status open → resolved", first.artifact),
            changed: written.clone(),
        })
        .collect())
}

/// The last component of `path`, lossily as text (empty when there is none).
fn file_name_of(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn remove(path: &Path) -> Result<()> {
    ucg_store::remove_if_present(path).map_err(|e| Error::io("delete", path, e))
}

impl Pass {
    /// The decision log, when there is one, resolves inside its run folder or the project: checked
    /// before anything is written, so a log symlinked elsewhere refuses the pass, not its end.
    pub fn check_log_target(&self) -> Result<()> {
        let Some(dir) = &self.log_dir else {
            return Ok(());
        };
        let bounds = || self.bounds_root.clone().into_iter().collect();
        ucg_store::write_target(dir, DECISION_LOG_FILE, bounds)?;
        Ok(())
    }
}

/// Appends to the run folder's decision log what the pass has done since the last call: the
/// `## ucg-resolve <time>` heading the first time, then one bullet per answer (id, action,
/// answer, what was cleared) and per close applied from an earlier pass. Called after every
/// answer of the interactive pass and on the way out of a failing one, so what was recorded is
/// also logged. The log's path once anything was (or, in a dry run, would be) appended.
pub fn append_to_log(pass: &Pass, outcome: &mut Outcome) -> Result<Option<PathBuf>> {
    let Some(dir) = &pass.log_dir else {
        return Ok(None);
    };
    let path = dir.join(DECISION_LOG_FILE);
    let (recorded, applied) = (
        &outcome.recorded[outcome.logged.0..],
        &outcome.applied[outcome.logged.1..],
    );
    if recorded.is_empty() && applied.is_empty() {
        return Ok(outcome.log_started.then_some(path));
    }
    let mut section = String::new();
    if !outcome.log_started {
        section.push_str(&format!("\n## ucg-resolve {}\n\n", now_stamp()));
    }
    for answer in recorded {
        let cleared: Vec<&str> = applied
            .iter()
            .filter(|a| a.id == answer.id)
            .map(|a| a.cleared.as_str())
            .collect();
        let cleared = if cleared.is_empty() {
            "nothing (recorded only)".to_string()
        } else {
            cleared.join("; ")
        };
        // Every field one line and without raw control characters: ids and paths come from
        // artifacts, `by` from the configuration, the answer from whoever typed it.
        let by = one_line(answer.by.as_deref().unwrap_or("(no user.email)"));
        let at = one_line(answer.at.as_deref().unwrap_or_default());
        let replaced = outcome
            .replaced
            .iter()
            .rev()
            .find(|r| r.id == answer.id)
            .map(|r| format!(" — replaces {}", one_line(&r.describe())))
            .unwrap_or_default();
        section.push_str(&format!(
            "- `{}` — {} — {} — by {by} at {at} — cleared: {}{replaced}\n",
            one_line(&answer.id),
            answer.action.name(),
            one_line(&answer.answer),
            one_line(&cleared)
        ));
    }
    for done in applied {
        if !recorded.iter().any(|a| a.id == done.id) {
            section.push_str(&format!(
                "- `{}` — close (recorded earlier) — cleared: {}\n",
                one_line(&done.id),
                one_line(&done.cleared)
            ));
        }
    }
    outcome.logged = (outcome.recorded.len(), outcome.applied.len());
    outcome.log_started = true;
    outcome
        .changed
        .insert(changed(path.clone(), Change::Appended));
    if pass.dry_run {
        return Ok(Some(path));
    }
    append_section(dir, pass.bounds_root.as_deref(), section).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_the_closed_rows_flip() {
        let text = "| id | source | status | reason |\n|---|---|---|---|\n| d1 | decision |  open | Sign off? |\n| d2 | gate | open | Sign off? |\n| d3 | decision | open | Other |\n";
        let id = crate::ids::mint("decision", "l.md", "Sign off?");
        let (out, flipped) = flip_ledger_rows(text, "l.md", &|i| i == id);
        assert_eq!(flipped, std::slice::from_ref(&id));
        assert_eq!(out, text.replacen("|  open |", "|  resolved |", 1));
    }
}
