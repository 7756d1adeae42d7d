//! `git ucg resolve`: the guided pass over what a stopped run waits on (PRODUCT.md §4). Each
//! answer is recorded, then applied, under the artifact directory's lock; the pass appends one
//! section to the run's decision log and ends with the hand-back.

use crate::cli::{Action, ResolveArgs};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::store::{self, ArtifactSource, DirLock};
use crate::ucg::decision_log::DECISION_LOG_FILE;
use crate::ucg::decisions::{IdSet, DECISIONS_FILE};
use crate::ucg::pending::{self, Artifacts, Pending, PendingInputs, PendingItem, Source};
use crate::ucg::resolve::{self as record, Answer, Applied};
use crate::ucg::{heartbeat, runs};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

pub const SCHEMA: &str = "git-ucg.resolve/1";

/// Where the pass reads and writes.
struct Run {
    project_root: PathBuf,
    impl_dir: PathBuf,
    ledger: PathBuf,
    /// The run folder whose decision log gets the pass's section.
    log_dir: Option<PathBuf>,
    dry_run: bool,
}

/// What the pass did.
#[derive(Default)]
struct Outcome {
    recorded: Vec<Answer>,
    applied: Vec<Applied>,
    /// What is still pending after the last commit.
    after: Option<Pending>,
    /// How many of `recorded` and `applied` the decision log already holds.
    logged: (usize, usize),
    /// Whether this pass's heading is in the decision log.
    log_started: bool,
}

pub fn run(ctx: &Context, args: &ResolveArgs) -> Result<u8> {
    let given = given_answers(args)?;
    let interactive = args.interactive
        || (given.is_empty() && args.answers.is_none() && std::io::stdin().is_terminal());
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.as_deref())?;
    let ledger = ctx.deferred_work(
        args.deferred_work.as_deref(),
        args.impl_artifacts.as_deref(),
        &impl_dir,
    );
    let project_root = ctx.try_project_root().unwrap_or_else(|| PathBuf::from("."));
    let runs_root = args
        .runs_root
        .clone()
        .unwrap_or_else(|| project_root.join(runs::RUNS_ROOT));
    // Everything that can refuse is settled before the first write.
    let log_dir = decision_log_folder(&impl_dir, &runs_root, args.run.as_deref(), interactive)?;
    let run = Run {
        project_root,
        impl_dir,
        ledger,
        log_dir,
        dry_run: args.dry_run,
    };
    let mut outcome = Outcome::default();
    let pass = |outcome: &mut Outcome| -> Result<()> {
        if interactive {
            read_answers_doc(&run)?;
            let before = enumerate(&run);
            // Closes already on record are applied first, without asking.
            commit(ctx, &run, &[], outcome)?;
            guided_pass(ctx, &run, &before, outcome)
        } else {
            // Also with nothing given: what an earlier pass recorded and did not apply is applied.
            commit(ctx, &run, &given, outcome)
        }
    };
    // Where a resume re-enters reads the verdicts, which no answer changes: it is worked out on
    // the other core, from its own view of the repository, while the pass writes.
    let root = ctx.try_project_root();
    let impl_flag = args.impl_artifacts.clone();
    let routed = std::thread::scope(|scope| {
        let route = (!args.json)
            .then(|| {
                // The readers recurse: the same stack as every command gets.
                std::thread::Builder::new()
                    .stack_size(crate::STACK_SIZE)
                    .spawn_scoped(scope, || {
                        let root = root?;
                        let own = Context::at(&root, false);
                        super::resume::route(&own, impl_flag.as_deref()).ok()
                    })
                    .ok()
            })
            .flatten();
        let done = pass(&mut outcome);
        (done, route.and_then(|r| r.join().ok().flatten()))
    });
    let (done, route) = routed;
    if let Err(error) = done {
        // What was recorded before the failure is logged all the same.
        let _ = append_to_log(&run, &mut outcome);
        return Err(error);
    }
    let logged = append_to_log(&run, &mut outcome)?;
    let after = match outcome.after.take() {
        Some(after) => after,
        None => enumerate(&run),
    };
    if args.json {
        let doc = serde_json::json!({
            "schema": SCHEMA,
            "dry_run": run.dry_run,
            "recorded": outcome.recorded,
            "applied": outcome.applied,
            "pending": after.items,
            "unpromoted": after.unpromoted,
            "blockers": after.blockers,
            "decision_log": logged.as_ref().map(|p| p.to_string_lossy()),
        });
        return crate::output::print_json(&doc);
    }
    let mut out = std::io::stdout().lock();
    let mut text = hand_back(&run, &after, &outcome, logged.as_deref());
    if !outcome.applied.is_empty() {
        // Where the run goes next (a pass that only deferred hands nothing back).
        if let Some(route) = route {
            let at = route
                .story
                .map(|s| format!(" at story {s}"))
                .unwrap_or_default();
            text.push_str(&format!(
                "Resume re-enters {}{at}: {}\n`git ucg resume` lists what it re-asserts.\n",
                route.stage, route.why
            ));
        }
    }
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(0)
}

/// `--close/--defer … --answer …` in command-line order, or the `--answers` document.
fn given_answers(args: &ResolveArgs) -> Result<Vec<Answer>> {
    if let Some(file) = &args.answers {
        return answers_file(file);
    }
    if args.stray_answers() > 0 {
        return Err(
            Error::new("an --answer belongs to the --close or --defer before it")
                .hint("give each --close ID or --defer ID its own --answer TEXT, right after it"),
        );
    }
    args.given
        .iter()
        .map(|(action, id, answer)| match (action, answer) {
            (Action::Close, None) => Err(Error::new(format!("--close {id} needs an --answer"))
                .hint("a close records the decision made: --close ID --answer TEXT")),
            _ => Ok(Answer {
                id: id.clone(),
                answer: answer.clone().unwrap_or_default(),
                action: *action,
            }),
        })
        .collect()
}

fn answers_file(file: &Path) -> Result<Vec<Answer>> {
    #[derive(serde::Deserialize)]
    struct Doc {
        answers: Vec<Item>,
    }
    #[derive(serde::Deserialize)]
    struct Item {
        id: String,
        #[serde(default)]
        answer: Option<String>,
        action: Action,
    }
    let name = file.display().to_string();
    let bytes = if file == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)?;
        bytes
    } else {
        std::fs::read(file).map_err(|e| Error::new(format!("cannot read {name}: {e}")))?
    };
    let doc: Doc = serde_json::from_slice(&bytes).map_err(|e| {
        Error::new(format!("{name}: {e}")).hint(
            r#"expected {"answers": [{"id": "…", "answer": "…", "action": "close"|"defer"}]}"#,
        )
    })?;
    doc.answers
        .into_iter()
        .map(|item| match (item.action, item.answer) {
            (Action::Close, None) => Err(Error::new(format!(
                "{name}: the close of {} has no answer",
                item.id
            ))),
            (action, answer) => Ok(Answer {
                id: item.id,
                answer: answer.unwrap_or_default(),
                action,
            }),
        })
        .collect()
}

fn inputs(run: &Run) -> PendingInputs<'_> {
    PendingInputs {
        project_root: &run.project_root,
        impl_dir: &run.impl_dir,
        ledger: &run.ledger,
    }
}

fn enumerate(run: &Run) -> Pending {
    pending::enumerate(&inputs(run), &ArtifactSource::WorkTree)
}

/// Every id answered must be one the run waits on, a RED still in the registry, or an id already
/// on record (answering again replaces the answer, so a rerun is harmless).
fn check_known(
    pending: &Pending,
    answered_before: &std::collections::HashSet<&str>,
    answers: &[Answer],
) -> Result<()> {
    let known: std::collections::HashSet<&str> = pending
        .items
        .iter()
        .map(|i| i.id.as_str())
        .chain(pending.registry_ids.iter().map(String::as_str))
        .collect();
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
    let mut named = unknown
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if unknown.len() > 5 {
        named.push_str(&format!(" and {} more", unknown.len() - 5));
    }
    Err(Error::new(format!("not a pending decision: {named}"))
        .hint("`git ucg pending` lists the ids the run waits on; nothing was written"))
}

fn decisions_path(run: &Run) -> PathBuf {
    run.impl_dir.join(DECISIONS_FILE)
}

/// The answers document as it must be to be written, or the refusal that names it.
fn read_answers_doc(run: &Run) -> Result<(crate::pyjson::Object, Vec<crate::pyjson::Value>)> {
    let path = decisions_path(run);
    let refuse = |reason: String| {
        let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ");
        Error::new(format!(
            "{}: {reason}; refusing to write the answers",
            path.display()
        ))
        .hint(format!(
            "repair it by hand, or move it aside (mv {0} {0}.corrupt-{stamp}): moving it aside brings \
back every RED its closes suppressed, to be answered again",
            path.display()
        ))
    };
    let bytes =
        store::read_optional(&path).map_err(|e| refuse(format!("it cannot be read ({e})")))?;
    record::decisions_for_write(bytes.as_deref()).map_err(|c| refuse(c.reason))
}

/// Under the artifact directory's lock: checks the answers, records them, and applies every close
/// on record whose artifact is still there.
fn commit(ctx: &Context, run: &Run, answers: &[Answer], outcome: &mut Outcome) -> Result<()> {
    if !run.impl_dir.is_dir() {
        return check_known(&Pending::default(), &Default::default(), answers);
    }
    let lock = store::lock_dir(&run.impl_dir)?;
    // The answers (a long project's file is large) are parsed while the artifacts are read and
    // enumerated: the items do not depend on the answers, which are laid over them afterwards.
    let (doc, found) = std::thread::scope(|scope| {
        let doc = std::thread::Builder::new()
            .stack_size(crate::STACK_SIZE)
            .spawn_scoped(scope, || read_answers_doc(run))
            .map_err(|e| Error::new(format!("cannot start a thread: {e}")))?;
        let (artifacts, _) =
            Artifacts::read_without_answers(&inputs(run), &ArtifactSource::WorkTree, false);
        let found = pending::enumerate_unanswered(&inputs(run), &artifacts);
        let doc = doc
            .join()
            .map_err(|_| Error::new("internal error while reading the answers"))??;
        Ok::<_, Error>((doc, found))
    })?;
    let (mut doc, mut entries) = doc;
    // Answered before: answering again replaces the answer (so a rerun is harmless).
    let given: std::collections::HashSet<&str> = answers.iter().map(|a| a.id.as_str()).collect();
    let answered_before: std::collections::HashSet<&str> = entries
        .iter()
        .filter_map(|e| e.as_object()?.get("id")?.as_str())
        .filter_map(|id| given.get(id).copied())
        .collect();
    check_known(&found, &answered_before, answers)?;
    record::merge(&mut entries, answers);
    let closed = record::closed_in(&entries);
    if !answers.is_empty() && !run.dry_run {
        let text = record::render(&mut doc, &mut entries);
        let bounds = || ctx.try_project_root().into_iter().collect();
        let target = store::write_target(&run.impl_dir, DECISIONS_FILE, bounds)?;
        store::write_atomic(&lock, &target, text.as_bytes())?;
    }
    outcome.recorded.extend_from_slice(answers);
    let answers_now = pending::answers_for(&entries, &found);
    let found = pending::with_answers(found, &answers_now);
    let after = apply(ctx, run, &lock, found, closed, outcome)?;
    outcome.after = Some(after);
    Ok(())
}

/// Applies the closes on record (`closed_ids`) to the artifacts still carrying them (`pending`, as
/// enumerated under the lock). Returns what is still pending afterwards. The registry is
/// rewritten on this thread while the escalation files and the ledger are cleared on another.
fn apply(
    ctx: &Context,
    run: &Run,
    lock: &DirLock,
    mut pending: Pending,
    closed_ids: IdSet,
    outcome: &mut Outcome,
) -> Result<Pending> {
    let applied_before = outcome.applied.len();
    let root = ctx.try_project_root();
    let (reds, files) = std::thread::scope(|scope| {
        let files = scope.spawn(|| apply_files(run, root.as_deref(), lock, &pending, &closed_ids));
        let reds = apply_reds(ctx, run, lock, &pending, &closed_ids);
        let files = files
            .join()
            .unwrap_or_else(|_| Err(Error::new("internal error while clearing artifacts")));
        (reds, files)
    });
    // Whatever was cleared is reported (and logged), even when the other half failed.
    let (reds, files) = match (reds, files) {
        (Ok(reds), Ok(files)) => (reds, files),
        (Ok(done), Err(error)) | (Err(error), Ok(done)) => {
            outcome.applied.extend(done);
            return Err(error);
        }
        (Err(error), Err(_)) => return Err(error),
    };
    outcome.applied.extend(reds);
    outcome.applied.extend(files);
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
    ctx: &Context,
    run: &Run,
    lock: &DirLock,
    pending: &Pending,
    closed_ids: &IdSet,
) -> Result<Vec<Applied>> {
    let registry_name = crate::ucg::reds::REGISTRY_FILE;
    let cleared: Vec<String> = pending
        .registry_ids
        .iter()
        .filter(|id| closed_ids.contains(id.as_str()))
        .cloned()
        .collect();
    if !cleared.is_empty() && !run.dry_run {
        super::reds::from_sidecar_locked(ctx, &run.impl_dir, lock, closed_ids.clone())?;
    }
    Ok(cleared
        .into_iter()
        .map(|id| Applied {
            id,
            source: Source::Red,
            cleared: format!("removed from {registry_name}, tombstone recorded"),
        })
        .collect())
}

/// Closed escalations lose their typed sidecar (the raw marker stays) and, for a budget overrun,
/// their turn counter; closed ledger rows get their `status` cell flipped and nothing else.
fn apply_files(
    run: &Run,
    root: Option<&Path>,
    lock: &DirLock,
    pending: &Pending,
    closed_ids: &IdSet,
) -> Result<Vec<Applied>> {
    let closed = |id: &str| closed_ids.contains(id);
    let mut applied = Vec::new();
    for item in pending
        .items
        .iter()
        .filter(|i| i.source == Source::Escalation && closed(&i.id))
    {
        let file_name = Path::new(&item.artifact)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sidecar = run.impl_dir.join(&file_name);
        let mut cleared = vec![file_name.clone()];
        let budget = (item.kind == "budget-overrun")
            .then(|| record::budget_file(&sidecar))
            .flatten();
        if !run.dry_run {
            remove(&sidecar)?;
        }
        if let Some(budget) = budget.filter(|b| b.exists()) {
            if !run.dry_run {
                remove(&budget)?;
            }
            cleared.push(
                budget
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
        }
        applied.push(Applied {
            id: item.id.clone(),
            source: Source::Escalation,
            cleared: format!("deleted {}", cleared.join(" and ")),
        });
    }

    let Some(first) = pending
        .items
        .iter()
        .find(|i| i.source == Source::Decision && closed(&i.id))
    else {
        return Ok(applied);
    };
    // The file the edit replaces (a symlink within bounds is followed), locked in its own
    // directory before it is read: read, flip and write are one step for other writers.
    let dir = run
        .ledger
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = run
        .ledger
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bounds = || root.map(Path::to_path_buf).into_iter().collect();
    let target = store::write_target(dir, &name, bounds)?;
    let target_dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let own_lock;
    let ledger_lock = if same_dir(target_dir, &run.impl_dir) {
        lock
    } else {
        own_lock = store::lock_dir(target_dir)?;
        &own_lock
    };
    let text = std::fs::read_to_string(&target)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", target.display())))?;
    let (edited, flipped) = record::flip_ledger_rows(&text, &first.artifact, &closed);
    if !run.dry_run && edited != text {
        store::write_atomic(ledger_lock, &target, edited.as_bytes())?;
    }
    applied.extend(flipped.into_iter().map(|id| Applied {
        id,
        source: Source::Decision,
        cleared: format!("{}: status open → resolved", first.artifact),
    }));
    Ok(applied)
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::new(format!("cannot delete {}: {e}", path.display()))),
    }
}

/// The run folder whose decision log gets the section: `--run NAME`, else the heartbeat epic's.
/// None found: `None` (nothing is appended; the hand-back says so). Several: the operator picks
/// one, or, without a terminal, the command stops listing them.
fn decision_log_folder(
    impl_dir: &Path,
    runs_root: &Path,
    named: Option<&str>,
    interactive: bool,
) -> Result<Option<PathBuf>> {
    if let Some(name) = named {
        let dir = runs_root.join(name);
        if !dir.join(DECISION_LOG_FILE).is_file() {
            return Err(Error::new(format!(
                "{} is not a run folder (no {DECISION_LOG_FILE} in it)",
                dir.display()
            ))
            .hint("`git ucg runs` lists the run folders"));
        }
        return Ok(Some(dir));
    }
    let Some(epic) = std::fs::read(impl_dir.join(heartbeat::HEARTBEAT_FILE))
        .ok()
        .and_then(|b| heartbeat::parse(&b).epic)
    else {
        return Ok(None);
    };
    let names: Vec<String> = std::fs::read_dir(runs_root)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    let found: Vec<PathBuf> = runs::candidates_for_epic(&names, &epic)
        .into_iter()
        .map(|n| runs_root.join(n))
        .filter(|d| d.join(DECISION_LOG_FILE).is_file())
        .collect();
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.into_iter().next()),
        _ if interactive => choose(&found).map(Some),
        _ => Err(Error::new(format!(
            "several run folders belong to epic {epic}: {}",
            found
                .iter()
                .filter_map(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .hint("pick the one whose decision log gets this pass with --run NAME")),
    }
}

fn choose(found: &[PathBuf]) -> Result<PathBuf> {
    eprintln!("Several run folders belong to this epic:");
    for (n, dir) in found.iter().enumerate() {
        eprintln!("  {}. {}", n + 1, dir.display());
    }
    loop {
        let line = crate::output::ask("Which one gets this pass's decision log section? [1] ")?
            .ok_or_else(|| Error::new("no run folder chosen"))?;
        let pick = if line.trim().is_empty() {
            Some(0)
        } else {
            line.trim()
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
        };
        if let Some(dir) = pick.and_then(|n| found.get(n)) {
            return Ok(dir.clone());
        }
    }
}

/// The interactive pass: every pending item once, in order; each answer recorded and applied at
/// once, so quitting keeps everything answered so far.
fn guided_pass(ctx: &Context, run: &Run, pending: &Pending, outcome: &mut Outcome) -> Result<()> {
    let asked: Vec<&PendingItem> = pending
        .items
        .iter()
        .filter(|i| i.action.as_deref() != Some("close"))
        .collect();
    for file in &pending.unpromoted {
        eprintln!(
            "note: {file} is a raw escalation the run has not promoted yet: it cannot be answered here"
        );
    }
    if asked.is_empty() {
        return Ok(());
    }
    let total = asked.len();
    for (n, item) in asked.into_iter().enumerate() {
        let source = match item.source {
            Source::Red => "RED",
            Source::Escalation => "escalation",
            Source::Decision => "ledger decision",
        };
        eprintln!();
        eprintln!("[{}/{total}] {source} {}", n + 1, item.id);
        eprintln!("  kind      {}", item.kind);
        eprintln!("  artifact  {}", item.artifact);
        eprintln!("  decision  {}", item.decision_needed);
        if !item.evidence.is_empty() {
            eprintln!("  evidence  {}", item.evidence);
        }
        if let (Some("defer"), Some(answer)) = (item.action.as_deref(), &item.answer) {
            eprintln!("  deferred before: {answer}");
        }
        let action = loop {
            let Some(key) = crate::output::ask("[c]lose, [d]efer, [s]kip, [q]uit? ")? else {
                return Ok(());
            };
            match key.trim().to_lowercase().as_str() {
                "c" | "close" => break Some(Action::Close),
                "d" | "defer" => break Some(Action::Defer),
                "s" | "skip" | "" => break None,
                "q" | "quit" => return Ok(()),
                _ => eprintln!("  c, d, s or q"),
            }
        };
        let Some(action) = action else {
            continue;
        };
        let answer = loop {
            let prompt = match action {
                Action::Close => "answer (the decision, one line): ",
                Action::Defer => "answer (optional): ",
            };
            let Some(text) = crate::output::ask(prompt)? else {
                return Ok(());
            };
            if action == Action::Defer || !text.trim().is_empty() {
                break text;
            }
        };
        let answer = Answer {
            id: item.id.clone(),
            answer,
            action,
        };
        commit(ctx, run, std::slice::from_ref(&answer), outcome)?;
        // Logged at once: a pass ended by Ctrl-C keeps its log in step with its answers.
        append_to_log(run, outcome)?;
    }
    Ok(())
}

/// Appends to the run folder's decision log what the pass has done since the last call: the
/// `## ucg-resolve <time>` heading the first time, then one bullet per answer (id, action,
/// answer, what was cleared) and per close applied from an earlier pass. Called after every
/// answer of the interactive pass and on the way out of a failing one, so what was recorded is
/// also logged. The log's path once anything was (or, in a dry run, would be) appended.
fn append_to_log(run: &Run, outcome: &mut Outcome) -> Result<Option<PathBuf>> {
    let Some(dir) = &run.log_dir else {
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
    let one_line = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut section = String::new();
    if !outcome.log_started {
        let stamp = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ");
        section.push_str(&format!("\n## ucg-resolve {stamp}\n\n"));
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
        section.push_str(&format!(
            "- `{}` — {} — {} — cleared: {cleared}\n",
            answer.id,
            answer.action.name(),
            one_line(&answer.answer)
        ));
    }
    for done in applied {
        if !recorded.iter().any(|a| a.id == done.id) {
            section.push_str(&format!(
                "- `{}` — close (recorded earlier) — cleared: {}\n",
                done.id, done.cleared
            ));
        }
    }
    outcome.logged = (outcome.recorded.len(), outcome.applied.len());
    outcome.log_started = true;
    if run.dry_run {
        return Ok(Some(path));
    }
    let _lock = store::lock_dir(dir)?;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(|e| Error::new(format!("cannot append to {}: {e}", path.display())))?;
    // A log that does not end its last line gets one first, so the heading starts a line.
    let ends_in_newline = std::fs::read(&path)
        .map(|b| b.is_empty() || b.ends_with(b"\n"))
        .unwrap_or(true);
    if !ends_in_newline {
        section.insert(0, '\n');
    }
    file.write_all(section.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::new(format!("cannot append to {}: {e}", path.display())))?;
    Ok(Some(path))
}

/// What closed, what is still pending, and where the run goes next.
fn hand_back(run: &Run, after: &Pending, outcome: &Outcome, logged: Option<&Path>) -> String {
    let mut out = String::new();
    for blocker in &after.blockers {
        out.push_str(&format!(
            "Blocked: {}: {}\n  {}\n",
            blocker.artifact, blocker.reason, blocker.way_out
        ));
    }
    for file in &after.unpromoted {
        out.push_str(&format!(
            "Not answerable yet: {file} (a raw escalation the run has not promoted)\n"
        ));
    }
    let nothing_else = after.blockers.is_empty() && after.unpromoted.is_empty();
    if nothing_else
        && after.items.is_empty()
        && outcome.recorded.is_empty()
        && outcome.applied.is_empty()
    {
        out.push_str(
            "Nothing is pending: the run stopped for a reason other than a decision. \
`git ucg status` shows where it stands.\n",
        );
        return out;
    }
    let verb = if run.dry_run { "would be" } else { "" };
    let closes: Vec<&Applied> = outcome.applied.iter().collect();
    let defers: Vec<&Answer> = outcome
        .recorded
        .iter()
        .filter(|a| a.action == Action::Defer)
        .collect();
    if !closes.is_empty() {
        out.push_str(&format!(
            "Closed{}: {}\n",
            if verb.is_empty() {
                String::new()
            } else {
                format!(" ({verb} applied)")
            },
            closes.len()
        ));
        for applied in &closes {
            out.push_str(&format!("  {}  {}\n", applied.id, applied.cleared));
        }
    }
    if !defers.is_empty() {
        out.push_str(&format!("Deferred: {}\n", defers.len()));
        for answer in &defers {
            out.push_str(&format!("  {}\n", answer.id));
        }
    }
    if after.items.is_empty() {
        out.push_str("Nothing is pending any more.\n");
    } else {
        out.push_str(&format!(
            "Still pending: {} — the run blocks on them again at its next preflight.\n",
            after.items.len()
        ));
        for item in &after.items {
            out.push_str(&format!("  {}\n", item.id));
        }
    }
    match (logged, &run.log_dir) {
        (Some(path), _) if run.dry_run => out.push_str(&format!(
            "Decision log: would append to {}\n",
            path.display()
        )),
        (Some(path), _) => out.push_str(&format!("Decision log: appended to {}\n", path.display())),
        (None, None) => out.push_str("Decision log: no run folder found; nothing appended.\n"),
        (None, Some(_)) => {}
    }
    out
}
