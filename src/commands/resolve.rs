//! `git ucg resolve`: the guided pass over what a stopped run waits on (docs/product.md §4). Each
//! answer is recorded, then applied, under the artifact directory's lock; the pass appends one
//! section to the run's decision log and ends with the hand-back.

use crate::cli::{Action, ResolveArgs};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::output::{AnswerPrompt, Keypress, Typed};
use serde_json::Value;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use ucg_ultracode::answer::Answer;
use ucg_ultracode::decision_log::{decision_log_folder, Chooser};
use ucg_ultracode::decisions::DECISIONS_FILE;
use ucg_ultracode::pending::{Pending, PendingItem, Source};
use ucg_ultracode::resolve::{
    append_to_log, check_answers_file, commit, enumerate, enumerate_offering, Applied, Change,
    Outcome, Pass,
};
use ucg_ultracode::resume;
use ucg_ultracode::similarity::{self, DiffPiece};

mod branch;

/// `eprintln!` for a person: the line wrapped to the terminal's columns at its spaces.
macro_rules! say {
    () => {
        crate::output::say("\n")
    };
    ($($arg:tt)*) => {
        crate::output::say(&format!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) fn run(ctx: &Context, args: &ResolveArgs) -> Result<u8> {
    if let Some(name) = &args.branch {
        return branch::run(ctx, args, name);
    }
    let given = given_answers(args)?;
    let nothing_given = given.is_empty() && args.answers.is_none() && !args.reuse_similar;
    let terminal = std::io::stdin().is_terminal();
    let interactive = args.interactive || (nothing_given && terminal);
    // Nothing given and no one to ask: what is on record is applied, and the rest is not asked.
    let unasked = nothing_given && !interactive;
    let (impl_dir, ledger) = ctx.run_files(&args.impl_artifacts, &args.deferred_work)?;
    let project_root = ctx.try_project_root().unwrap_or_else(|| PathBuf::from("."));
    let runs_root = args.runs_root.or_under(&project_root);
    // Everything that can refuse is settled before the first write.
    let chooser: Chooser<Error> = &choose;
    let log_dir = decision_log_folder(
        &impl_dir,
        &runs_root,
        args.run.as_deref(),
        interactive.then_some(chooser),
    )?;
    let run = Pass {
        project_root,
        bounds_root: ctx.try_project_root(),
        impl_dir,
        ledger,
        log_dir,
        dry_run: args.dry_run,
        once: !interactive,
        by: ctx.repo().ok().and_then(ucg_git::user_email),
    };
    run.check_log_target()?;
    let threshold = match interactive || args.reuse_similar {
        false => similarity::DEFAULT_THRESHOLD,
        true => threshold(ctx)?,
    };
    let (policy, rules) = (ctx.gate_policy(), ctx.decider_rules());
    // `--mine`: the guided pass walks only the items whose deciders name you.
    let mine = match args.mine {
        false => None,
        true => Some(ctx.my_email(": git config user.email you@example.com")?),
    };
    let mut outcome = Outcome::default();
    let mut reused = Vec::new();
    let mut pass = |outcome: &mut Outcome| -> Result<()> {
        if interactive {
            check_answers_file(&run)?;
            let mut before = enumerate_offering(&run, threshold);
            before.annotate(&policy, &rules);
            if let Some(email) = &mine {
                before
                    .items
                    .retain(|item| ucg_ultracode::deciders::decides(&item.deciders, email));
            }
            // Closes already on record are applied first, without asking.
            commit(&run, &[], outcome)?;
            guided_pass(&before, ctx.color, &mut |answer| {
                answer_one(&run, answer, outcome)
            })
        } else if args.reuse_similar {
            // Earlier answers first: an answer given with it for the same item wins.
            let offered = enumerate_offering(&run, threshold);
            let mut answers: Vec<Answer> = offered.items.iter().filter_map(reuse).collect();
            for answer in &answers {
                let from = answer.reused_from.as_deref().unwrap_or_default();
                let ratio = offered
                    .items
                    .iter()
                    .find(|i| i.id == answer.id)
                    .and_then(|i| i.similar_to.as_ref())
                    .map_or(0.0, |s| s.ratio);
                reused.push(format!(
                    "  {}  {} as {from} (words {:.0}% alike): {}\n",
                    answer.id,
                    answer.action.name(),
                    ratio * 100.0,
                    answer.answer
                ));
            }
            answers.extend(given.iter().cloned());
            Ok(commit(&run, &answers, outcome)?)
        } else {
            // Also with nothing given: what an earlier pass recorded and did not apply is applied.
            Ok(commit(&run, &given, outcome)?)
        }
    };
    // Where a resume re-enters reads the verdicts, which no answer changes: it is worked out on
    // the other core, from its own view of the repository, while the pass writes.
    let root = ctx.try_project_root();
    let impl_flag = args.impl_artifacts.dir.clone();
    let (done, route) = std::thread::scope(|scope| {
        let route = (!args.json.on)
            .then(|| {
                // The readers recurse: the same stack as every command gets.
                std::thread::Builder::new()
                    .stack_size(ucg_store::pyjson::STACK_SIZE)
                    .spawn_scoped(scope, || {
                        let root = root?;
                        let own = Context::at(&root, false);
                        let inputs = own.epic_inputs(impl_flag.as_deref(), None).ok()?;
                        Some(resume::route(own.repo().ok()?, &inputs))
                    })
                    .ok()
            })
            .flatten();
        let done = pass(&mut outcome);
        (done, route.and_then(|r| r.join().ok().flatten()))
    });
    if let Err(error) = done {
        // What was recorded before the failure is logged all the same.
        let _ = append_to_log(&run, &mut outcome);
        return Err(error);
    }
    let logged = append_to_log(&run, &mut outcome)?;
    let mut after = outcome.after.take().unwrap_or_else(|| enumerate(&run));
    after.annotate(&policy, &rules);
    let askable = after
        .items
        .iter()
        .filter(|i| i.action.as_deref() != Some("close"))
        .count();
    if unasked && askable > 0 && outcome.applied.is_empty() {
        return Err(not_asked(askable));
    }
    if unasked && askable > 0 {
        say!(
            "note: the {askable} still pending were not asked: standard input is not a terminal \
(`git ucg resolve --interactive` asks over it)"
        );
    }
    if args.json.on {
        return crate::output::print_json(&json_document(
            &run,
            &outcome,
            &after,
            logged.as_deref(),
        ));
    }
    let mut text = String::new();
    if args.reuse_similar {
        match reused.is_empty() {
            true => text.push_str("Reused: none (no pending question rewords an answered one)\n"),
            false => text.push_str(&format!("Reused: {}\n{}", reused.len(), reused.concat())),
        }
    }
    text.push_str(&hand_back(
        &run,
        &after,
        &outcome,
        logged.as_deref(),
        args.full,
    ));
    text.push_str(&what_changed(ctx, &run, &outcome));
    if !outcome.applied.is_empty() {
        // Where the run goes next (a pass that only deferred hands nothing back).
        if let Some(route) = route {
            let at = crate::render::restart::at_story(&route);
            text.push_str(&format!(
                "Resume re-enters {}{at}: {}.\n`git ucg resume` lists what it re-asserts.\n\n",
                route.stage, route.why
            ));
            text.push_str(&crate::render::restart::said(
                &route,
                &run.impl_dir,
                &run.project_root,
                crate::output::columns(),
            ));
        }
    }
    crate::output::print_prose(&text)?;
    Ok(0)
}

/// The `--json` document of a pass.
fn json_document(run: &Pass, outcome: &Outcome, after: &Pending, logged: Option<&Path>) -> Value {
    serde_json::json!({
        "schema": "git-ucg.resolve/1",
        "dry_run": run.dry_run,
        "recorded": outcome.recorded,
        "applied": outcome.applied,
        "pending": after.items,
        "unpromoted": after.unpromoted,
        "blockers": after.blockers,
        "decision_log": logged.map(|p| p.to_string_lossy()),
        "changed": outcome.changed.iter().map(|c| serde_json::json!({
            "path": shown(&c.path, &run.project_root),
            "change": c.change.name(),
        })).collect::<Vec<_>>(),
    })
}

/// How alike a reworded question must be to be offered an earlier answer: a threshold that cannot
/// be read refuses the passes that would offer one.
fn threshold(ctx: &Context) -> Result<f64> {
    ctx.similarity_threshold().map_err(|problem| {
        Error::new(problem).hint("set a number from 0 to 1: git config ucg.similarity 0.8")
    })
}

/// The refusal of a pass with nothing to do but ask, and no terminal to ask on.
fn not_asked(askable: usize) -> Error {
    Error::new(format!(
        "did not ask: standard input is not a terminal ({askable} pending {})",
        if askable == 1 { "item" } else { "items" }
    ))
    .hint("ask over this input anyway: git ucg resolve --interactive")
    .hint("or answer with flags, the ids as `git ucg pending` lists them: git ucg resolve --close ID --answer TEXT [--defer ID …]")
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
            _ => Ok(Answer::new(id, answer.clone().unwrap_or_default(), *action)),
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
        crate::output::stdin_bytes()
            .map_err(|e| Error::new(format!("cannot read the answers from standard input: {e}")))?
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
            (action, answer) => Ok(Answer::new(item.id, answer.unwrap_or_default(), action)),
        })
        .collect()
}

/// The answer an item's earlier wording offers it (`similar_to`) as its own, noting where it came
/// from; none when the earlier action is neither close nor defer, or is a close without an answer.
pub(super) fn reuse(item: &PendingItem) -> Option<Answer> {
    let earlier = item.similar_to.as_ref()?;
    let action = match earlier.action.as_str() {
        "close" if !ucg_ultracode::answer::says_nothing(&earlier.answer) => Action::Close,
        "defer" => Action::Defer,
        _ => return None,
    };
    Some(Answer {
        reused_from: Some(earlier.id.clone()),
        ..Answer::new(item.id.clone(), earlier.answer.clone(), action)
    })
}

/// The word diff from an earlier question to the new one: on a terminal (the colour rules) words
/// gone in red and new words in green; otherwise as `git diff --word-diff` marks them,
/// `[-gone-]` and `{+new+}`.
fn word_diff(earlier: &str, now: &str, color: bool) -> String {
    let mut out = String::new();
    for (piece, text) in similarity::word_diff(earlier, now) {
        let text = crate::render::visible::escape_controls(&text, &[]);
        match (piece, color) {
            (DiffPiece::Same, _) => out.push_str(&text),
            (DiffPiece::Gone, true) => out.push_str(&format!("\x1b[31m{text}\x1b[m")),
            (DiffPiece::New, true) => out.push_str(&format!("\x1b[32m{text}\x1b[m")),
            (DiffPiece::Gone, false) => out.push_str(&format!("[-{text}-]")),
            (DiffPiece::New, false) => out.push_str(&format!("{{+{text}+}}")),
        }
    }
    out
}

/// The interactive pass: every pending item once, in order; each answer recorded and applied at
/// once, so quitting keeps everything answered so far.
/// The guided pass over `pending`: each item shown and asked, each answer handed to `record` as
/// it is given (recorded and applied at once in a checkout; kept for one commit on a branch).
pub(super) fn guided_pass(
    pending: &Pending,
    color: bool,
    record: &mut dyn FnMut(&Answer) -> Result<()>,
) -> Result<()> {
    let asked: Vec<&PendingItem> = pending
        .items
        .iter()
        .filter(|i| i.action.as_deref() != Some("close"))
        .collect();
    for file in &pending.unpromoted {
        say!(
            "note: {file} is a raw escalation the run has not promoted yet: it cannot be answered here"
        );
    }
    if asked.is_empty() {
        return Ok(());
    }
    let total = asked.len();
    let mut prompt = AnswerPrompt::new();
    for (n, item) in asked.into_iter().enumerate() {
        let source = match item.source {
            _ if !item.contested.is_empty() => "contested decision",
            Source::Red => "RED",
            Source::Escalation => "escalation",
            Source::Decision => "ledger decision",
        };
        // Every field comes from an artifact, the configuration or an earlier answer: shown
        // with its control characters visible, never driving the terminal.
        let shown = |text: &str| crate::render::visible::escape_controls(text, &[]).into_owned();
        say!();
        say!("[{}/{total}] {source} {}", n + 1, shown(&item.label()));
        say!("  kind      {}", shown(&item.kind));
        say!("  artifact  {}", shown(&item.artifact));
        say!("  decision  {}", shown(&item.decision_needed));
        if !item.deciders.is_empty() {
            say!("  decider   {}", shown(&item.deciders.join(", ")));
        }
        // A contested decision's evidence is its answers, listed as choices below.
        if !item.evidence.is_empty() && item.contested.is_empty() {
            say!("  evidence  {}", shown(&item.evidence));
        }
        if let (Some("defer"), Some(answer)) = (item.action.as_deref(), &item.answer) {
            say!("  deferred before: {}", shown(answer));
        }
        if let Some(earlier) = &item.similar_to {
            say!(
                "  reworded? {} was answered before (words {:.0}% alike):",
                shown(&earlier.id),
                earlier.ratio * 100.0
            );
            say!("  earlier   {}", shown(&earlier.decision_needed));
            say!(
                "  wording   {}",
                word_diff(&earlier.decision_needed, &item.decision_needed, color)
            );
            say!(
                "  answered  {}: {}",
                shown(&earlier.action),
                shown(&earlier.answer)
            );
        }
        for (n, answer) in item.contested.iter().enumerate() {
            say!("  [{}]       {}", n + 1, shown(&answer.to_string()));
        }
        let reusable = reuse(item);
        // Until something is recorded, skipped or ended: Esc or Ctrl-C at the answer, or `b`
        // when it is shown back, comes back to this item's choice.
        loop {
            let action = match choose_action(reusable.is_some(), item.contested.len())? {
                Choice::Act(action) => action,
                Choice::Take(index) => {
                    if let Some(taken) = item.contested.get(index) {
                        record(&Answer::new(
                            item.id.clone(),
                            taken.answer.clone(),
                            Action::Close,
                        ))?;
                    }
                    break;
                }
                Choice::Reuse => {
                    if let Some(answer) = &reusable {
                        record(answer)?;
                    }
                    break;
                }
                Choice::Skip => {
                    say!("  skipped — nothing recorded");
                    break;
                }
                Choice::Quit => {
                    match total - n - 1 {
                        0 => say!("  quit — what was answered is kept"),
                        left => say!(
                            "  quit — {left} more {} not asked; what was answered is kept",
                            if left == 1 { "item" } else { "items" }
                        ),
                    }
                    return Ok(());
                }
                Choice::End => {
                    say!("{END_OF_INPUT}");
                    return Ok(());
                }
            };
            match ask_answer(&mut prompt, action, &shown)? {
                Typed::Line(answer) => {
                    prompt.remember(&answer);
                    record(&Answer::new(item.id.clone(), answer, action))?;
                    break;
                }
                Typed::Back => say!("  back to the choice — nothing recorded"),
                Typed::End => {
                    say!("{END_OF_INPUT}");
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

const END_OF_INPUT: &str = "  end of input — the pass stops here; what was answered is kept";

/// The answer to one item once its action is chosen. On a terminal the answer is shown back as
/// it will be recorded and Enter records it; `e` edits it again, `b` (or Esc) goes back to the
/// choice. Input that is not a terminal is taken as it comes: a script has no one to look.
fn ask_answer(
    prompt: &mut AnswerPrompt,
    action: Action,
    shown: &dyn Fn(&str) -> String,
) -> Result<Typed> {
    let question = match action {
        Action::Close => "answer (the decision, one line): ",
        Action::Defer => "answer (optional): ",
    };
    let mut typed = String::new();
    loop {
        let text = match prompt.read(question, &typed)? {
            Typed::Line(text) => text,
            Typed::Back => return Ok(Typed::Back),
            Typed::End => {
                // The line editor ends its line; a plain prompt's line is ended here, before the
                // last words.
                if !prompt.on_terminal() {
                    say!();
                }
                return Ok(Typed::End);
            }
        };
        if action == Action::Close && ucg_ultracode::answer::says_nothing(&text) {
            say!(
                "  a close records the decision made, so it needs one: type it on one line\n  \
(Ctrl-D stops the pass, keeping what was answered)"
            );
            typed.clear();
            continue;
        }
        if !prompt.on_terminal() {
            return Ok(Typed::Line(text));
        }
        say!("  to record: {} \"{}\"", action.name(), shown(&text));
        loop {
            match crate::output::ask_key("  [Enter] record it, [e]dit, [b]ack to the choice? ")? {
                Some(Keypress::Enter) => return Ok(Typed::Line(text)),
                Some(Keypress::Char('e')) => break,
                Some(Keypress::Char('b') | Keypress::Escape) => return Ok(Typed::Back),
                Some(Keypress::End) | None => return Ok(Typed::End),
                Some(Keypress::Char(_) | Keypress::Other) => {
                    say!("  Enter records it, e edits it, b goes back to the choice")
                }
            }
        }
        typed = text;
    }
}

/// One answer of the guided pass: recorded and applied, logged, and confirmed.
fn answer_one(run: &Pass, answer: &Answer, outcome: &mut Outcome) -> Result<()> {
    let applied_before = outcome.applied.len();
    commit(run, std::slice::from_ref(answer), outcome)?;
    // Logged at once: a pass ended by Ctrl-C keeps its log in step with its answers.
    append_to_log(run, outcome)?;
    say!(
        "{}",
        confirmation(
            run,
            answer,
            outcome.applied.get(applied_before..).unwrap_or_default()
        )
    );
    Ok(())
}

/// What the operator chose for one item.
enum Choice {
    Act(Action),
    /// Record the earlier wording's answer for this item.
    Reuse,
    /// Close a contested decision with one of the answers on record (its index).
    Take(usize),
    Skip,
    Quit,
    /// End of input (Ctrl-D): the pass stops, as with quit.
    End,
}

/// One key on a terminal (no Enter; Enter takes the default, skip); a whole line otherwise. `r`
/// (reuse) is offered when the item rewords an answered question; `1`, `2`… close a contested
/// decision with one of its `contested` answers (`c` closes it with a third).
fn choose_action(reusable: bool, contested: usize) -> Result<Choice> {
    let prompt = match (reusable, contested) {
        (_, 2..) => format!("[1]-[{contested}] close with that answer, [c]lose with another, [d]efer, [s]kip, [q]uit? "),
        (true, _) => "[c]lose, [d]efer, [r]euse, [s]kip, [q]uit (Enter: skip)? ".to_string(),
        (false, _) => "[c]lose, [d]efer, [s]kip, [q]uit (Enter: skip)? ".to_string(),
    };
    loop {
        let given = match crate::output::ask_key(&prompt)? {
            Some(Keypress::Char(c)) => c.to_string(),
            Some(Keypress::Enter) => String::new(),
            Some(Keypress::End) => return Ok(Choice::End),
            Some(Keypress::Other | Keypress::Escape) => "?".to_string(),
            None => match crate::output::ask(&prompt)? {
                Some(line) => line,
                None => {
                    // The prompt's line is ended before the last words.
                    say!();
                    return Ok(Choice::End);
                }
            },
        };
        match given.trim().to_lowercase().as_str() {
            "c" | "close" => return Ok(Choice::Act(Action::Close)),
            "d" | "defer" => return Ok(Choice::Act(Action::Defer)),
            "s" | "skip" | "" => return Ok(Choice::Skip),
            "q" | "quit" => return Ok(Choice::Quit),
            "r" | "reuse" if reusable => return Ok(Choice::Reuse),
            other if taken(other, contested).is_some() => {
                return Ok(Choice::Take(taken(other, contested).unwrap_or_default()))
            }
            _ if contested > 0 => say!(
                "  a number closes with that answer, c with another, d defers, s skips, q quits"
            ),
            _ if reusable => say!(
                "  c closes, d defers, r reuses the earlier answer, s (or Enter) skips, q quits"
            ),
            _ => say!("  c closes, d defers, s (or Enter) skips, q quits"),
        }
    }
}

/// The index of the contested answer `typed` names (`1` is the first), if it names one.
fn taken(typed: &str, contested: usize) -> Option<usize> {
    let n: usize = typed.parse().ok()?;
    (1..=contested).contains(&n).then(|| n - 1)
}

/// The line after each answer: what the answer did, or (in a dry run) would do.
fn confirmation(run: &Pass, answer: &Answer, applied: &[Applied]) -> String {
    let cleared: Vec<&str> = applied
        .iter()
        .filter(|a| a.id == answer.id)
        .map(|a| a.cleared.as_str())
        .collect();
    let dry = run.dry_run.then_some(" (dry run: nothing written)");
    let dry = dry.unwrap_or_default();
    match answer.action {
        Action::Close if cleared.is_empty() => {
            format!("  closed{dry} — recorded in {DECISIONS_FILE}; nothing left to clear")
        }
        Action::Close => format!("  closed{dry} — {}", cleared.join("; ")),
        Action::Defer => {
            format!("  deferred{dry} — recorded in {DECISIONS_FILE}; it is asked again next time")
        }
    }
}

/// What closed, what is still pending, and where the run goes next.
/// Items by their handles unless `full`.
fn hand_back(
    run: &Pass,
    after: &Pending,
    outcome: &Outcome,
    logged: Option<&Path>,
    full: bool,
) -> String {
    let name = |id: &str| match full {
        true => id.to_string(),
        false => ucg_ultracode::pending::handle_of(id).to_string(),
    };
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
        if !run.impl_dir.is_dir() {
            out.push_str(&format!(
                "There is no run here: the artifact directory {} does not exist (set \
workflow.implementation_artifacts, or pass --impl-artifacts DIR).\n",
                run.impl_dir.display()
            ));
            return out;
        }
        out.push_str(
            "Nothing is pending: the run stopped for a reason other than a decision. \
`git ucg status` shows where it stands.\n",
        );
        return out;
    }
    let closes = &outcome.applied;
    let defers: Vec<&Answer> = outcome
        .recorded
        .iter()
        .filter(|a| a.action == Action::Defer)
        .collect();
    if !closes.is_empty() {
        let note = run.dry_run.then_some(" (would be applied)");
        let note = note.unwrap_or_default();
        out.push_str(&format!("Closed{note}: {}\n", closes.len()));
        for applied in closes {
            out.push_str(&format!("  {}  {}\n", name(&applied.id), applied.cleared));
        }
    }
    if !outcome.replaced.is_empty() {
        out.push_str(&format!(
            "Replaced an earlier answer: {}\n",
            outcome.replaced.len()
        ));
        for replaced in &outcome.replaced {
            let now = outcome
                .recorded
                .iter()
                .rev()
                .find(|a| a.id == replaced.id)
                .map(|a| format!("{} \"{}\"", a.action.name(), a.answer))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {}\n    was: {}\n    now: {now}\n",
                name(&replaced.id),
                replaced.describe()
            ));
        }
    }
    if !defers.is_empty() {
        out.push_str(&format!("Deferred: {}\n", defers.len()));
        for answer in &defers {
            out.push_str(&format!("  {}\n", name(&answer.id)));
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
            let label = if full { item.id.clone() } else { item.label() };
            let needed = crate::render::visible::escape_controls(&item.decision_needed, &[]);
            out.push_str(&format!("  {label}  {needed}\n"));
        }
    }
    match (logged, &run.log_dir) {
        (Some(path), _) => out.push_str(&format!(
            "Decision log: {} {}\n",
            if run.dry_run {
                "would append to"
            } else {
                "appended to"
            },
            shown(path, &run.project_root)
        )),
        (None, None) => out.push_str("Decision log: no run folder found; nothing appended.\n"),
        (None, Some(_)) => {}
    }
    out
}

/// Every file the pass wrote, deleted or appended to, from the project root; and, when git does
/// not track some of them, that `git status` will not show the change, and what does.
fn what_changed(ctx: &Context, run: &Pass, outcome: &Outcome) -> String {
    if outcome.changed.is_empty() {
        return String::new();
    }
    let mut out = String::from(match run.dry_run {
        true => "Files that would change (from the project root):\n",
        false => "Files changed (from the project root):\n",
    });
    for change in &outcome.changed {
        let verb = match (run.dry_run, change.change) {
            (false, c) => c.name(),
            (true, Change::Written) => "would write",
            (true, Change::Deleted) => "would delete",
            (true, Change::Appended) => "would append",
        };
        out.push_str(&format!(
            "  {verb:<12}  {}\n",
            shown(&change.path, &run.project_root)
        ));
    }
    let paths: Vec<PathBuf> = outcome.changed.iter().map(|c| c.path.clone()).collect();
    let Ok(repo) = ctx.repo() else {
        return out;
    };
    // A changed file git does not track is either new in a directory git tracks (it needs a
    // `git add`: `git commit -a` would leave it out) or in a directory git does not track at all.
    let mut new_files = Vec::new();
    let mut dirs = Vec::new();
    for path in ucg_git::repo::untracked(repo, &paths) {
        let parent = path.parent().unwrap_or(Path::new("."));
        let deleted = !path.exists();
        if ucg_git::repo::untracked(repo, &[parent.to_path_buf()]).is_empty() {
            if !deleted {
                new_files.push(shown(&path, &run.project_root));
            }
        } else {
            dirs.push(format!("{}/", shown(parent, &run.project_root)));
        }
    }
    dirs.sort();
    dirs.dedup();
    if !new_files.is_empty() {
        out.push_str(&format!(
            "New, and not yet in git (a `git commit -a` leaves it out): git add {}\n",
            new_files.join(" ")
        ));
    }
    if !dirs.is_empty() {
        out.push_str(&format!(
            "Not tracked by git, so `git status` does not show these changes:\n{}\
`git ucg status` shows the run as it stands now; the decision log's new section, what this \
pass did.\n",
            dirs.iter()
                .map(|dir| format!("  {dir}\n"))
                .collect::<String>()
        ));
    }
    out
}

/// `path` from the project root when it lies under it (`.` for the root itself), else as given.
fn shown(path: &Path, root: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path_abs, root_abs) = (absolute(path), absolute(root));
    match path_abs.strip_prefix(&root_abs) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

fn choose(found: &[PathBuf]) -> Result<PathBuf> {
    say!("Several run folders belong to this epic:");
    for (n, dir) in found.iter().enumerate() {
        let dir = dir.display().to_string();
        say!(
            "  {}. {}",
            n + 1,
            crate::render::visible::escape_controls(&dir, &[])
        );
    }
    loop {
        let line = crate::output::ask("Which one gets this pass's decision log section? [1] ")?
            .ok_or_else(|| Error::new("no run folder chosen"))?;
        let pick = match line.trim() {
            "" => Some(0),
            typed => typed.parse::<usize>().ok().and_then(|n| n.checked_sub(1)),
        };
        if let Some(dir) = pick.and_then(|n| found.get(n)) {
            return Ok(dir.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::word_diff;

    #[test]
    fn the_word_diff_is_coloured_only_where_colour_is_on() {
        let (earlier, now) = (
            "Do sessions expire, and after how long?",
            "Do sessions expire and, if so, after how long?",
        );
        let plain = word_diff(earlier, now, false);
        assert_eq!(
            plain,
            "Do sessions [-expire,-]{+expire and, if+} [-and-]{+so,+} after how long?"
        );
        let coloured = word_diff(earlier, now, true);
        assert!(coloured.contains("\x1b[31mexpire,\x1b[m"), "{coloured:?}");
        assert!(
            coloured.contains("\x1b[32mexpire and, if\x1b[m"),
            "{coloured:?}"
        );
        assert!(!coloured.contains("[-"));
        // A control character in a question is shown, not sent to the terminal.
        assert!(!word_diff("a\x1b[2Jb", "a c", true).contains("\x1b[2J"));
    }
}
