//! `git ucg resolve --branch BRANCH`: answering on a branch's committed artifacts without a
//! checkout. The branch's artifact directory, ledger and decision logs are copied out of its tip
//! into a private scratch directory; the same record-then-apply pass as on a checkout runs there;
//! what it changed becomes one commit on the branch, which moves only if nobody moved it
//! meanwhile (else the pass runs again on the new tip, so neither writer's answers are lost).
//! The work tree, the index and HEAD are never touched; a work tree that has the branch checked
//! out is told how to catch up, and refused when its copy of a changed file has edits of its own.
//! The pass on a tip is `ucg_ultracode::branch`; here are the commit that moves the branch only
//! from the tip read, the retries, the push, and the words.

use super::{given_answers, hand_back, json_document};
use crate::cli::ResolveArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use ucg_git::commit::{self, Moved};
use ucg_git::{ObjectId, Repository};
use ucg_ultracode::answer::Answer;
use ucg_ultracode::branch::{self, BranchPass, BranchPaths, BranchRequest};
use ucg_ultracode::{deciders, pending};

/// How often the branch is read again when another writer moved it between our read and our
/// update, before giving up.
const ATTEMPTS: usize = 8;

pub(crate) fn run(ctx: &Context, args: &ResolveArgs, branch: &str) -> Result<u8> {
    let mut given = given_answers(args)?;
    let nothing_given = given.is_empty() && args.answers.is_none() && !args.reuse_similar;
    let interactive =
        args.interactive || args.mine || (nothing_given && std::io::stdin().is_terminal());
    if given.is_empty() && !interactive && !args.reuse_similar {
        return Err(Error::new(format!(
            "resolve --branch {branch} needs the answers: standard input is not a terminal to ask on"
        ))
        .hint("answer with flags: git ucg resolve --branch BRANCH --close ID --answer TEXT [--defer ID --answer TEXT …]")
        .hint("or from a file: git ucg resolve --branch BRANCH --answers FILE (`git ucg pending --rev BRANCH` lists the ids)")
        .hint("or ask over this input anyway: git ucg resolve --branch BRANCH --interactive"));
    }
    let repo = ctx.repo()?;
    let places = places(ctx, args)?;
    let by = ucg_git::user_email(repo);
    let full = commit::full_branch_name(branch);
    let short = commit::short_branch_name(branch).to_string();
    if commit::branch_tip(repo, branch).is_err() {
        // Only the remote has it (a fresh clone): set up the local branch, as a checkout would.
        if let Some(from) = commit::branch_from_remote(repo, branch, args.push.as_deref())? {
            eprintln!("git-ucg: branch {short} set up from {from}");
        }
    }
    if interactive || args.reuse_similar {
        // The branch's own questions, as its tip holds them: asked (or reused) first, then
        // committed on the branch as one commit.
        given = asked_on_tip(ctx, args, &full, interactive, given)?;
        if given.is_empty() {
            println!("Nothing answered: nothing to commit on {short}.");
            return Ok(0);
        }
    }

    let mut last_error = None;
    let mut landed = None;
    for _ in 0..ATTEMPTS {
        let tip = commit::branch_tip(repo, branch)?;
        let done = pass_on(repo, args, &places, &given, by.as_deref(), tip, &short)?;
        if args.dry_run {
            return finish(args, done, None);
        }
        if done.edits.is_empty() {
            println!("Nothing to commit on {short}: the answers change none of its files.");
            return finish(args, done, None);
        }
        branch::refuse_dirty_checkouts(repo, &full, tip, &done)?;
        let message = message(args, &done.outcome.recorded);
        match commit::commit_on_branch(repo, branch, tip, tip, &done.edits, &message) {
            Ok(Moved::To(id)) => {
                landed = Some((tip, id, done));
                break;
            }
            Ok(Moved::Unchanged) => return finish(args, done, None),
            Ok(Moved::Elsewhere) => {}
            Err(error) => last_error = Some(error),
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let Some((base, mut new_tip, mut done)) = landed else {
        return Err(Error::new(format!(
            "{short} kept moving while the answers were committed ({ATTEMPTS} attempts){}",
            last_error.map(|e| format!(": {e}")).unwrap_or_default()
        ))
        .hint("try again; nothing was committed"));
    };
    let mut pushed = None;
    if let Some(remote) = &args.push {
        // Whatever stops the push, the local branch goes back to where it was: a checkout of it
        // stays consistent with its index, and nothing is half done.
        let undo = |tip: ObjectId, why: Error| -> Error {
            match commit::move_branch_back(repo, branch, tip, base) {
                Ok(true) => why.hint(format!(
                    "nothing changed here: {short} is back at {}; answer again when the push can go",
                    short_id(base)
                )),
                _ => why.hint(format!(
                    "the answers are committed on {short} here ({}); push when it can go: git push {remote} {short}",
                    short_id(tip)
                )),
            }
        };
        // The remote's tip first: a push is judged by the pre-push gate against a tip this
        // repository knows, and one that moved on is answered again before anything is pushed.
        let remote_tip = fetch_tip(ctx, remote, &full).ok();
        let first = match remote_tip
            .filter(|t| !ucg_git::is_ancestor(repo, *t, new_tip).unwrap_or(false))
        {
            Some(moved) => PushResult::Behind(format!("now at {}", short_id(moved))),
            None => push(ctx, remote, &full)?,
        };
        match first {
            PushResult::Pushed => pushed = Some(remote.clone()),
            PushResult::Behind(why) => {
                // The remote moved on: answer again on its tip, from the branch as it was.
                eprintln!(
                    "git-ucg: {remote}'s {short} moved on ({why}); answering again on its tip"
                );
                if !commit::move_branch_back(repo, branch, new_tip, base)? {
                    return Err(Error::new(format!(
                        "{short} moved here while the push was refused: the answers are committed on it ({})",
                        short_id(new_tip)
                    ))
                    .hint(format!("push when it can go: git push {remote} {short}")));
                }
                let fetched = fetch_tip(ctx, remote, &full)?;
                if !ucg_git::is_ancestor(repo, base, fetched).unwrap_or(false) {
                    return Err(Error::new(format!(
                        "{remote}'s {short} has commits that {short} here does not, and the other way round"
                    ))
                    .hint(format!(
                        "nothing changed here; merge or rebase {short} on {remote}'s, then answer again"
                    )));
                }
                done = pass_on(repo, args, &places, &given, by.as_deref(), fetched, &short)?;
                branch::refuse_dirty_checkouts(repo, &full, base, &done)?;
                let message = message(args, &done.outcome.recorded);
                new_tip = match commit::commit_on_branch(
                    repo,
                    branch,
                    fetched,
                    base,
                    &done.edits,
                    &message,
                )? {
                    Moved::To(id) => id,
                    Moved::Unchanged => fetched,
                    Moved::Elsewhere => {
                        return Err(Error::new(format!(
                        "{short} moved here while the answers were applied again on {remote}'s tip"
                    ))
                        .hint("nothing was committed; try again"))
                    }
                };
                match push(ctx, remote, &full)? {
                    PushResult::Pushed => pushed = Some(remote.clone()),
                    refused => return Err(undo(new_tip, refused.error(remote, &short))),
                }
            }
            refused => return Err(undo(new_tip, refused.error(remote, &short))),
        }
    }
    let landed = LandedCommit {
        branch: short,
        from: base,
        to: new_tip,
        pushed,
        behind: ucg_git::repo::work_trees_on_branch(repo, &full),
        changed: changed_between(repo, base, new_tip)
            .unwrap_or_else(|| done.edits.iter().map(|e| e.path().to_string()).collect()),
    };
    finish(args, done, Some(landed))
}

/// The files that differ between `from` and `to` (the local branch's move, which after a retry
/// also carries the remote's commits): what a checkout of it restores to catch up.
fn changed_between(repo: &Repository, from: ObjectId, to: ObjectId) -> Option<Vec<String>> {
    let tree = |id| ucg_git::tree::CommitTree::of_commit(repo, id).ok();
    let changes = tree(to)?.changes_from(Some(&tree(from)?)).ok()?;
    Some(changes.into_iter().map(|c| c.path).collect())
}

/// The answers for the branch's pending items as its tip holds them: the earlier wordings'
/// answers (`--reuse-similar`), then `given`, then the guided pass's (only your items with
/// `--mine`) — a later answer for an id wins, as in a checkout.
fn asked_on_tip(
    ctx: &Context,
    args: &ResolveArgs,
    full: &str,
    interactive: bool,
    given: Vec<Answer>,
) -> Result<Vec<Answer>> {
    let threshold = super::threshold(ctx)?;
    let (inputs, tip) = ctx.commit_gate_inputs(full, args.impl_artifacts.dir.as_deref())?;
    let mut found = pending::enumerate_offering(&inputs.pending(), &tip, threshold);
    ctx.annotate(&mut found);
    if args.mine {
        let me = ctx.my_email(": git config user.email you@example.com")?;
        found
            .items
            .retain(|item| deciders::decides(&item.deciders, &me));
    }
    let mut answers: Vec<Answer> = match args.reuse_similar {
        true => found.items.iter().filter_map(super::reuse).collect(),
        false => Vec::new(),
    };
    for answer in &answers {
        eprintln!(
            "reused for {}: {} {}",
            answer.id,
            answer.action.name(),
            answer.reused_from.as_deref().unwrap_or_default()
        );
    }
    answers.extend(given);
    if interactive {
        let branch = commit::short_branch_name(full);
        super::guided_pass(&found, ctx.color, &mut |answer| {
            answers.push(answer.clone());
            eprintln!("  noted — committed on {branch} when the pass ends");
            Ok(())
        })?;
    }
    Ok(answers)
}

/// What the commit did to the branch, for the hand-back.
struct LandedCommit {
    branch: String,
    from: ObjectId,
    to: ObjectId,
    pushed: Option<String>,
    /// Work trees with the branch checked out, now behind it.
    behind: Vec<PathBuf>,
    changed: Vec<String>,
}

fn short_id(id: ObjectId) -> String {
    id.to_hex_with_len(7).to_string()
}

fn finish(args: &ResolveArgs, done: BranchPass<Shown>, landed: Option<LandedCommit>) -> Result<u8> {
    if args.json.on {
        let (_, mut doc) = done.shown;
        doc["branch"] = match &landed {
            Some(landed) => serde_json::json!({
                "name": landed.branch,
                "from": landed.from.to_string(),
                "to": landed.to.to_string(),
                "pushed_to": landed.pushed,
                "work_trees_behind": landed.behind.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            }),
            None => serde_json::Value::Null,
        };
        return crate::output::print_json(&doc);
    }
    let (mut text, _) = done.shown;
    if let Some(landed) = &landed {
        text.push_str(&format!(
            "Committed on {} ({} → {}); the work tree, the index and HEAD are untouched.\n",
            landed.branch,
            short_id(landed.from),
            short_id(landed.to)
        ));
        for path in &landed.changed {
            text.push_str(&format!("  {path}\n"));
        }
        if let Some(remote) = &landed.pushed {
            text.push_str(&format!("Pushed {} to {remote}.\n", landed.branch));
        }
        for dir in &landed.behind {
            text.push_str(&format!(
                "{} is checked out in {}: its index and files still hold the answers as they were. Catch up with:\n  git -C {} restore --source=HEAD --staged --worktree -- {}\n",
                landed.branch,
                dir.display(),
                dir.display(),
                landed.changed.join(" ")
            ));
        }
    }
    crate::output::print_prose(&text)?;
    Ok(0)
}

/// The artifact directory, the ledger and the runs root as paths of the repository's tree
/// (located by this checkout's configuration, as `--rev` locates them).
fn places(ctx: &Context, args: &ResolveArgs) -> Result<BranchPaths> {
    let root = ucg_store::lexical_normal(&ctx.project_root()?);
    let within = |path: &Path| -> Option<String> {
        let absolute = ucg_store::lexical_normal(&std::path::absolute(path).ok()?);
        let relative = absolute.strip_prefix(&root).ok()?;
        Some(relative.to_str()?.replace('\\', "/"))
    };
    let (impl_dir, ledger) = ctx.run_files(&args.impl_artifacts, &args.deferred_work)?;
    let impl_rel = within(&impl_dir).filter(|p| !p.is_empty()).ok_or_else(|| {
        Error::new(format!(
            "the artifact directory {} is not inside the repository: it cannot be on a branch",
            impl_dir.display()
        ))
    })?;
    let runs_root = args.runs_root.or_under(&root);
    Ok(BranchPaths {
        impl_dir: impl_rel,
        ledger: within(&ledger),
        runs_root: within(&runs_root),
    })
}

/// What the hand-back says, worked out while the pass's scratch copy exists: the text and the
/// `--json` document.
type Shown = (String, serde_json::Value);

/// The pass on `tip`, with the hand-back it makes.
fn pass_on(
    repo: &Repository,
    args: &ResolveArgs,
    paths: &BranchPaths,
    given: &[Answer],
    by: Option<&str>,
    tip: ObjectId,
    branch: &str,
) -> Result<BranchPass<Shown>> {
    let request = BranchRequest {
        answers: given,
        by,
        run: args.run.as_deref(),
        dry_run: args.dry_run,
    };
    Ok(branch::pass_on(
        repo,
        paths,
        &request,
        tip,
        branch,
        |pass, outcome, after, logged| {
            (
                hand_back(pass, after, outcome, logged, args.full),
                json_document(pass, outcome, after, logged),
            )
        },
    )?)
}

/// The commit's message: `--message` or a summary line, then one line per answer.
fn message(args: &ResolveArgs, recorded: &[Answer]) -> String {
    let subject = args.message.clone().unwrap_or_else(|| {
        let n = recorded.len();
        format!(
            "Answer {n} decision{} of the run (git ucg resolve)",
            if n == 1 { "" } else { "s" }
        )
    });
    let mut text = format!("{}\n\n", subject.trim());
    for answer in recorded {
        let one_line = answer
            .answer
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        // An answer's control characters would drive the terminal of whoever runs `git log`.
        let one_line = crate::render::visible::escape_controls(&one_line, &[]);
        text.push_str(&format!(
            "- {} {}: {one_line}\n",
            answer.action.name(),
            answer.id
        ));
    }
    if let Some(by) = recorded.first().and_then(|a| a.by.as_deref()) {
        text.push_str(&format!("\nAnswered-by: {by}\n"));
    }
    text
}

/// How a push went.
enum PushResult {
    Pushed,
    /// The remote has commits the push does not (its summary, `[rejected] (fetch first)`).
    Behind(String),
    /// The remote refused it (its pre-receive hook, say): its summary and what it printed.
    RefusedThere(String, String),
    /// It never left this repository (the pre-push hook refused it, or the remote could not be
    /// reached): what git printed.
    StoppedHere(String),
}

impl PushResult {
    /// The error for a push that did not go, saying which side stopped it.
    fn error(self, remote: &str, branch: &str) -> Error {
        let quoted = |text: &str| {
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| format!("  {}", crate::render::visible::escape_controls(l, &[])))
                .collect::<Vec<_>>()
                .join("\n")
        };
        match self {
            PushResult::Pushed => Error::new("the push went"),
            PushResult::Behind(why) => Error::new(format!(
                "{remote} refused the push of {branch} again: {why}"
            )),
            PushResult::RefusedThere(why, said) => Error::new(format!(
                "{remote} refused the push of {branch}: {why}\n{}",
                quoted(&said)
            )),
            PushResult::StoppedHere(said) => Error::new(format!(
                "the push of {branch} to {remote} was stopped here, before it left:\n{}",
                quoted(&said)
            )),
        }
    }
}

/// `git push REMOTE BRANCH:BRANCH`, and which side stopped it when it did not go.
fn push(ctx: &Context, remote: &str, full: &str) -> Result<PushResult> {
    let root = ctx.project_root()?;
    let refspec = format!("{full}:{full}");
    let (ok, stdout, stderr) =
        ucg_git::run_git_captured(&root, &["push", "--porcelain", remote, &refspec])
            .map_err(|e| Error::new(format!("cannot run git push: {e}")))?;
    if ok {
        return Ok(PushResult::Pushed);
    }
    // `--porcelain`: a refused ref is `!<TAB><from>:<to><TAB><summary> (<reason>)`; a push the
    // pre-push hook stops, or that cannot reach the remote, has no such line.
    let refused = stdout
        .lines()
        .find_map(|line| line.strip_prefix("!\t")?.split('\t').nth(1))
        .map(str::to_string);
    Ok(match refused {
        Some(why) if why.starts_with("[rejected]") => PushResult::Behind(why),
        Some(why) => PushResult::RefusedThere(why, stderr),
        None => PushResult::StoppedHere(stderr),
    })
}

/// Fetches REMOTE's BRANCH and returns its tip.
fn fetch_tip(ctx: &Context, remote: &str, full: &str) -> Result<ObjectId> {
    let root = ctx.project_root()?;
    let (ok, _, stderr) = ucg_git::run_git_captured(&root, &["fetch", "--no-tags", remote, full])
        .map_err(|e| Error::new(format!("cannot run git fetch: {e}")))?;
    if !ok {
        return Err(Error::new(format!(
            "cannot fetch {full} from {remote}: {}",
            stderr.trim()
        )));
    }
    ucg_git::fetched_tip(ctx.repo()?).ok_or_else(|| {
        Error::new(format!(
            "fetched {full} from {remote}, but FETCH_HEAD cannot be read"
        ))
    })
}
