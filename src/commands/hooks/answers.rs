//! The hooks' side of "an answer is never blocked" ([`ucg_ultracode::answer_only`]): the change
//! each hook gates — the staged commit, the commits a push, a rebase or a received push carries —
//! judged from its content, and what a refusal adds when a commit mixes answers with other work.

use super::*;
use ucg_git::{ObjectId, Repository};
use ucg_ultracode::answer_only::{self, NotAnswerOnly, Refused};

/// The repository, with an object cache: judging a commit reads its trees once per file.
fn repository(ctx: &Context) -> std::result::Result<Repository, Refused> {
    let mut repo = ctx.repo().map_err(|e| unreadable(e.render()))?.clone();
    repo.object_cache_size_if_unset(8 << 20);
    Ok(repo)
}

/// The change `hook` gates, when it only records answers to the run `inputs` locates: the
/// staged commit for the commit hooks, the commits to be replayed for pre-rebase (`args`: the
/// upstream, then the branch), the new commits of each transaction line for
/// reference-transaction (`lines`).
pub(super) fn of_hook(
    ctx: &Context,
    hook: HookName,
    args: &[std::ffi::OsString],
    lines: &[u8],
    inputs: &GateInputs,
) -> std::result::Result<(), Refused> {
    let repo = &repository(ctx)?;
    match hook {
        HookName::PreRebase => {
            let arg = |i: usize| args.get(i).and_then(|a| a.to_str());
            let upstream = commit(repo, arg(0).unwrap_or("@{upstream}"))?;
            let branch = commit(repo, arg(1).unwrap_or("HEAD"))?;
            answer_only::judge_commits(repo, here(), branch, &[upstream.to_string()], inputs)
        }
        HookName::ReferenceTransaction => {
            for line in String::from_utf8_lossy(lines).lines() {
                let [old, new, _] = line.split(' ').collect::<Vec<_>>()[..] else {
                    return Err(unreadable(format!("a transaction line {line:?}")));
                };
                let new = commit(repo, new)?;
                let known = match old.bytes().all(|b| b == b'0') {
                    true => "--branches".to_string(),
                    false => old.to_string(),
                };
                answer_only::judge_commits(repo, here(), new, &[known], inputs)?;
            }
            Ok(())
        }
        _ => answer_only::judge_staged(repo, here(), inputs),
    }
}

/// The commit `commit`, just made: answers only against its first parent (a merge's, against
/// either side). A first commit records no answer.
pub(super) fn of_commit(
    ctx: &Context,
    commit: ObjectId,
    inputs: &GateInputs,
) -> std::result::Result<(), Refused> {
    let repo = &repository(ctx)?;
    let parents = ucg_git::tree::parents(repo, commit).map_err(|e| unreadable(e.to_string()))?;
    let Some(first) = parents.first() else {
        return Err(unreadable("a first commit".into()));
    };
    answer_only::judge_commits(repo, here(), commit, &[first.to_string()], inputs)
}

/// A pushed ref's new commits (`local` replacing `remote_old`): answers only when the push moves
/// a ref the remote has, whose tip this repository knows, forward by commits that each only
/// record answers. A new ref, a tip never fetched, or a rewrite gets no exemption: what the
/// remote "already has" would then be read from remote-tracking refs, a cache that can lie (a
/// stale or hand-made `refs/remotes/…`), and the commits could leave under any name.
///
/// `remote` is the pushed ref as git's line gives it: its name there and the remote's value before
/// the push (under pre-commit, which does not pass that on, it is asked of the remote).
pub(super) fn of_push(
    ctx: &Context,
    local: &str,
    (remote_ref, remote_old): (&str, &str),
    inputs: &GateInputs,
) -> std::result::Result<(), Refused> {
    let repo = &repository(ctx)?;
    let tip = commit(repo, local)?;
    let asked;
    let remote_old = match remote_old {
        managers::REMOTE_OLD_UNKNOWN => {
            asked = remote_tip(remote_ref)?;
            asked.as_str()
        }
        given => given,
    };
    if remote_old.bytes().all(|b| b == b'0') {
        return Err(unreadable("the push creates the ref".into()));
    }
    let known = forward_from(repo, remote_old, local)?;
    answer_only::judge_commits(repo, here(), tip, &[known], inputs)
}

/// The value of `remote_ref` on the remote pre-commit pushes to (its `PRE_COMMIT_REMOTE_NAME`), all
/// zeros when it has no such ref.
fn remote_tip(remote_ref: &str) -> std::result::Result<String, Refused> {
    let remote = std::env::var("PRE_COMMIT_REMOTE_NAME")
        .or_else(|_| std::env::var("PRE_COMMIT_REMOTE_URL"))
        .map_err(|_| unreadable("pre-commit named no remote".into()))?;
    match ucg_git::remote_tip(here(), &remote, remote_ref) {
        Ok(Some(id)) => Ok(id.to_string()),
        Ok(None) => Ok("0".repeat(40)),
        Err(e) => Err(unreadable(e.to_string())),
    }
}

/// A received push to a protected ref (`old` to `new`): answers only when it moves the ref
/// forward by commits that each only record answers. Creating the ref is not an answer.
pub(super) fn of_received(
    ctx: &Context,
    old: &str,
    new: &str,
    inputs: &GateInputs,
) -> std::result::Result<(), Refused> {
    let repo = &repository(ctx)?;
    // The pushed commits wait in the push's quarantine, where a revision lookup does not see
    // them: the id is taken as git gave it.
    let tip = ucg_git::repo::parse_id(new)
        .ok_or_else(|| unreadable(format!("{new:?} is not a commit id")))?;
    if old.bytes().all(|b| b == b'0') {
        return Err(unreadable("the push creates the branch".into()));
    }
    let known = forward_from(repo, old, new)?;
    answer_only::judge_commits(repo, here(), tip, &[known], inputs)
}

/// `old`, when `new` moves forward from it.
fn forward_from(repo: &Repository, old: &str, new: &str) -> std::result::Result<String, Refused> {
    let (Some(_), Some(_)) = (ucg_git::repo::parse_id(old), ucg_git::repo::parse_id(new)) else {
        return Err(unreadable(format!("{old:?} or {new:?} is not a commit id")));
    };
    match ucg_git::is_ancestor_by_git(repo, here(), old, new) {
        Ok(true) => Ok(old.to_string()),
        Ok(false) => Err(unreadable(format!("{new} does not descend from {old}"))),
        Err(e) => Err(unreadable(e.to_string())),
    }
}

fn commit(repo: &Repository, rev: &str) -> std::result::Result<ObjectId, Refused> {
    ucg_git::repo::commit_of(repo, rev).map_err(|e| unreadable(e.to_string()))
}

fn unreadable(why: String) -> Refused {
    Refused {
        commit: None,
        why: NotAnswerOnly::Unreadable(why),
        mixes_answers: false,
    }
}

/// What a refusal adds when the refused change tried to record answers: why it is not answers
/// only, and for a commit that mixes them with other work, how to split it.
pub(super) fn explain(refused: &Refused, verb: &str) -> Option<String> {
    let which = match refused.commit {
        Some(id) => format!("commit {}", &id.to_string()[..12]),
        None => "the staged commit".to_string(),
    };
    match &refused.why {
        _ if refused.mixes_answers => Some(format!(
            "{which} mixes answers with other changes ({}). Commit the answers on their own \
             first: they always go ahead (git restore --staged <other files>; git commit), then \
             the rest once nothing waits.",
            refused.why
        )),
        NotAnswerOnly::NotAsAnswered { .. }
        | NotAnswerOnly::NewlyPending { .. }
        | NotAnswerOnly::GoneUnanswered { .. }
        | NotAnswerOnly::Unjudgeable { .. } => Some(format!(
            "{which} is not answers only, which would {verb} while decisions wait: {}.",
            refused.why
        )),
        _ => None,
    }
}

/// Says that what the hook gates went ahead as answers only; the hook's exit code (0).
pub(super) fn passed(verb: &str) -> u8 {
    eprintln!("git-ucg: {verb}: answers only, so it goes ahead while decisions wait.");
    0
}

/// Prints, after a refusal, what [`explain`] adds, fitted to the terminal.
pub(super) fn explain_refusal(judged: &std::result::Result<(), Refused>, verb: &str) {
    if let Some(text) = judged.as_ref().err().and_then(|r| explain(r, verb)) {
        crate::output::say(&visible::escape_controls(&format!("{text}\n"), &[]));
    }
}
