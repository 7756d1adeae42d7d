//! `hooks run`: the decision a hook makes when git runs it, a foreign hook chained first.

use super::*;
use std::ffi::OsString;

/// What the installed scripts call: the chained hook first, then the decision.
pub(crate) fn run_hook(ctx: &Context, args: &HooksRunArgs) -> Result<u8> {
    // pre-commit's entry: the stage and the pushed ref from its environment; pre-commit runs
    // its own chained (`.legacy`) hook, so ours is not looked for.
    let (hook, from_env) = match (args.hook, args.from_env) {
        (_, true) => {
            let (hook, line) = managers::pre_commit_stage(|rev| {
                let repo = ctx.repo().map_err(|e| e.render().trim().to_string())?;
                ucg_git::repo::commit_of(repo, rev)
                    .map(|id| id.to_string())
                    .map_err(|e| e.to_string())
            })?;
            (hook, Some(line))
        }
        (Some(hook), false) => (hook, None),
        (None, false) => return Err(Error::new("which hook? git ucg hooks run <HOOK>")),
    };
    // The shared remote's gate is not the pusher's to skip (a local push hands the pusher's
    // environment to the hook).
    // A skipped push still runs, to record what it would have refused; the hooks that record
    // bypasses are not skipped at all.
    let skipping = !hook.is_server_side() && !hook.records_bypass() && skipped(hook);
    if skipping && hook != HookName::PrePush {
        return Ok(0);
    }
    let mut stdin = Vec::new();
    if let Some(line) = &from_env {
        stdin.clone_from(line);
    } else if matches!(
        hook,
        HookName::PrePush | HookName::ReferenceTransaction | HookName::PreReceive
    ) {
        std::io::stdin().lock().read_to_end(&mut stdin)?;
    }
    // A hook installed as a link knows where git ran it from: the chained hook is beside it, and
    // no repository needs opening to find it.
    let dir = match args.invoked_as.as_deref().and_then(Path::parent) {
        _ if from_env.is_some() => Err(Error::new("no chained hook under pre-commit")),
        Some(dir) => Ok(dir.to_path_buf()),
        None => ctx.hooks_dir().map(|(dir, _)| dir),
    };
    if let (Ok(dir), false) = (&dir, skipping) {
        let chained = chained_path(dir, hook);
        // As git does, a hook file that is not executable is not run. git ignores what a hook
        // that records returns: so does the chain.
        if is_runnable(&chained) {
            let code = run_hook_program(&chained, &args.args, &stdin)
                .map_err(cannot("run the chained hook", &chained))?;
            if code != 0 && !hook.records_bypass() {
                return Ok(code);
            }
        }
    }
    if hook == HookName::PreReceive {
        return receive::pre_receive(ctx, &stdin);
    }
    // Only the prepared state of a transaction that makes a new commit on a branch is judged.
    if hook == HookName::ReferenceTransaction {
        let prepared = args.args.first().is_some_and(|state| state == "prepared");
        let text = String::from_utf8_lossy(&stdin);
        if !prepared || !ucg_git::hooks::makes_a_new_commit(ctx.repo()?, &text) {
            return Ok(0);
        }
    }
    let mut verb = hook.verb().to_string();
    if hook == HookName::PrepareCommitMsg {
        match commit_without_gate_hook(ctx) {
            Some(command) => verb = command,
            None => return Ok(0),
        }
    }
    // `--no-verify` skips the commit hooks of commit, merge, am and rebase and the pre-push hook;
    // git has none for the commits only prepare-commit-msg and reference-transaction see.
    let bypass = match hook {
        HookName::PrepareCommitMsg => format!("Bypass once: GIT_UCG_SKIP=1 git {verb} …."),
        HookName::ReferenceTransaction => {
            "Bypass once: GIT_UCG_SKIP=1 git cherry-pick … (or git revert …).".to_string()
        }
        _ => format!("Bypass once: GIT_UCG_SKIP=1 git {verb} …, or git {verb} --no-verify."),
    };
    let verb = verb.as_str();
    // A run that cannot be located because its configuration is broken fails closed; a
    // repository without any run artifacts is not gated.
    let located = match ctx.gate_inputs(None) {
        Ok(located) => located,
        // What cannot be located was refused before the commit, unless bypassed: then there is
        // no decision to record either.
        Err(_) if hook.records_bypass() || skipping => return Ok(0),
        Err(error) => {
            eprint!("{}", error.render());
            eprintln!("git-ucg: {verb} refused: the run's artifacts cannot be located (above).");
            eprintln!("{bypass}");
            return Ok(1);
        }
    };
    if hook.records_bypass() {
        return Ok(record_after(ctx, hook, &args.args, &located));
    }
    if hook == HookName::PrePush && skipping {
        let remote = args.args.first().and_then(|a| a.to_str()).unwrap_or("?");
        return pre_push(ctx, &located, &stdin, &bypass, Some(remote));
    }
    if ctx.strict_mode() && matches!(hook, HookName::PreCommit | HookName::PrePush) {
        if let Some(story) = strict::current_story(&located.impl_dir) {
            // The branches a push updates on the remote: each ref line's third field.
            let pushed_to: Vec<&str> = std::str::from_utf8(&stdin)
                .unwrap_or_default()
                .lines()
                .filter_map(|line| line.split_whitespace().nth(2))
                .filter_map(|remote_ref| remote_ref.strip_prefix("refs/heads/"))
                .collect();
            let refusals = strict::refusals(ctx, &located.impl_dir, &story, verb, &pushed_to);
            if !refusals.is_empty() {
                eprintln!("git-ucg: {verb} refused by strict mode (story {story}):");
                for refusal in &refusals {
                    eprintln!("  - {refusal}");
                }
                eprintln!("{bypass} Strict mode off: git config ucg.gate.strict false");
                return Ok(1);
            }
        }
    }
    if hook == HookName::PrePush {
        return pre_push(ctx, &located, &stdin, &bypass, None);
    }
    let policy = ctx.gate_policy();
    let watch = pass_cache::Watch::start(ctx, hook, &located);
    // What the hook gates may only record answers, which pass while decisions wait: judged once,
    // and only when something would block.
    let judged = std::cell::OnceCell::new();
    let answers_only = || {
        judged
            .get_or_init(|| answers::of_hook(ctx, hook, &args.args, &stdin, &located))
            .is_ok()
    };
    match commit_verdict(ctx, hook, &stdin, &located, &policy, &answers_only) {
        Verdict::Pass => {
            watch.into_iter().for_each(|watch| watch.remember_pass(ctx));
            Ok(0)
        }
        Verdict::AnswersOnly => Ok(answers::passed(verb)),
        Verdict::Refused(refusals) => {
            for (decision, where_read) in refusals {
                say_refusal(ctx, decision, verb, &where_read, 0);
            }
            if let Some(judged) = judged.get() {
                answers::explain_refusal(judged, verb);
            }
            eprintln!("{bypass}");
            Ok(1)
        }
    }
}

/// What a commit hook comes to.
enum Verdict {
    /// Nothing blocks.
    Pass,
    /// Decisions wait, and what is committed only records answers.
    AnswersOnly,
    /// Refused by each decision, read where the string says.
    Refused(Vec<(gate::Decision, String)>),
}

/// The commit hooks' decision (post-commit's too, after the fact): the work tree's run, then the
/// runs of other work trees whose epic branch is committed on. `answers_only` is asked only when
/// something blocks.
fn commit_verdict(
    ctx: &Context,
    hook: HookName,
    stdin: &[u8],
    located: &GateInputs,
    policy: &gate::GatePolicy,
    answers_only: &dyn Fn() -> bool,
) -> Verdict {
    // Anything in the artifact directory's place is decided on (a FIFO or a link to nothing
    // there blocks, as `gate` says); only nothing at all has nothing to gate.
    if std::fs::symlink_metadata(&located.impl_dir).is_ok() {
        let decision = located.decide(&ArtifactSource::WorkTree, policy);
        if decision.blocked() {
            return match answers_only() {
                true => Verdict::AnswersOnly,
                false => Verdict::Refused(vec![(decision, "the work tree".into())]),
            };
        }
    }
    // The run is the repository's, not a worktree's: a commit on a branch another work tree's
    // run lands on waits for that run's decisions too.
    let branches: Vec<String> = match hook {
        HookName::ReferenceTransaction => String::from_utf8_lossy(stdin)
            .lines()
            .filter_map(|line| line.split(' ').nth(2)?.strip_prefix("refs/heads/"))
            .map(str::to_string)
            .collect(),
        _ => ctx
            .repo()
            .ok()
            .and_then(ucg_git::repo::current_branch)
            .into_iter()
            .collect(),
    };
    let mut refused = Vec::new();
    let mut answered = false;
    for run in ctx.other_work_tree_runs(&located.project_root) {
        let Some(branch) = run.epic_branch.as_ref().filter(|b| branches.contains(b)) else {
            continue;
        };
        let decision = run.inputs.decide(&ArtifactSource::WorkTree, policy);
        if !decision.blocked() {
            continue;
        }
        if answers_only() {
            answered = true;
            continue;
        }
        let where_read = format!(
            "the run in {}, whose epic branch is {branch}",
            run.inputs.project_root.display()
        );
        refused.push((decision, where_read));
    }
    match (refused.is_empty(), answered) {
        (false, _) => Verdict::Refused(refused),
        (true, true) => Verdict::AnswersOnly,
        (true, false) => Verdict::Pass,
    }
}

/// post-commit and post-merge: the commit just made, judged as its gate hook would have judged
/// it, noted as a bypass when that hook would have refused it. Always 0 (git ignores it).
fn record_after(ctx: &Context, hook: HookName, args: &[OsString], located: &GateInputs) -> u8 {
    // post-merge's argument says a squash merge, which makes no commit.
    if hook == HookName::PostMerge && args.first().is_some_and(|a| a == "1") {
        return 0;
    }
    let policy = ctx.gate_policy();
    let watch = pass_cache::Watch::start(ctx, hook, located);
    let Some(head) = ctx.repo().ok().and_then(ucg_git::repo::head) else {
        return 0;
    };
    let answers_only = || answers::of_commit(ctx, head, located).is_ok();
    let refusals = match commit_verdict(ctx, hook, &[], located, &policy, &answers_only) {
        Verdict::Pass => {
            watch.into_iter().for_each(|watch| watch.remember_pass(ctx));
            return 0;
        }
        Verdict::AnswersOnly => return 0,
        Verdict::Refused(refusals) => refusals,
    };
    if hook == HookName::PostMerge && !bypass::merge_made_here() {
        return 0;
    }
    let via = ucg_git::hooks::invoking_git_command().unwrap_or_else(|| hook.verb().into());
    let decisions: Vec<&gate::Decision> = refusals.iter().map(|(d, _)| d).collect();
    bypass::record(ctx, head, &via, None, &decisions);
    0
}

/// Whether the hook `hook`, run by git from `invoked_as`, passes without a decision, opening no
/// repository: a commit hook by the pass its last run remembered, prepare-commit-msg when the
/// git command making the commit had a gate hook of its own judge it. A chained hook beside it
/// always means the full run (it runs first).
pub(crate) fn passes_at_once(hook: HookName, invoked_as: &Path) -> bool {
    let dir = invoked_as.parent().unwrap_or(Path::new(""));
    if std::fs::symlink_metadata(chained_path(dir, hook)).is_ok() {
        return false;
    }
    match hook {
        HookName::PrepareCommitMsg => ucg_git::hooks::invoking_git_command()
            .is_some_and(|command| GATED_BEFORE.contains(&command.as_str())),
        _ => pass_cache::passes(hook),
    }
}

/// The git commands whose commits a gate hook of the default set judges (or `--no-verify`
/// bypasses) before git runs prepare-commit-msg: judging them again would cost a second decision
/// and undo the bypass.
const GATED_BEFORE: [&str; 5] = ["commit", "merge", "am", "rebase", "pull"];

/// For prepare-commit-msg: the git command making this commit when no gate hook judged it before
/// (a cherry-pick, a revert, or a command that cannot be recognised — judged, failing closed),
/// `None` when one did. An alias is followed to the command it stands for.
fn commit_without_gate_hook(ctx: &Context) -> Option<String> {
    let Some(mut command) = ucg_git::hooks::invoking_git_command() else {
        return Some("commit".into());
    };
    // Aliases may name aliases; git refuses a loop, and so many levels are not followed here.
    for _ in 0..8 {
        if GATED_BEFORE.contains(&command.as_str()) {
            return None;
        }
        let alias = ctx.config_string(&format!("alias.{command}"));
        // A shell alias (`!…`) runs git as a child: the hook's parent is then that git.
        match alias.as_deref().and_then(|a| a.split_whitespace().next()) {
            Some(first) if !first.starts_with('!') => command = first.to_string(),
            _ => break,
        }
    }
    Some(command)
}

/// Whether the push of `local_sha` (over `remote_sha` on the remote, all zeros for a new ref)
/// brings a commit of the epic branch `branch` that its protected base branches do not hold.
/// What cannot be read counts as carried: the push is then judged as the run's.
fn carries_epic_work(
    ctx: &Context,
    repo: &ucg_git::Repository,
    local_sha: &str,
    remote_sha: &str,
    branch: &str,
) -> bool {
    let Ok(epic_tip) = ucg_git::commit::branch_tip(repo, branch) else {
        return false;
    };
    let bases: Vec<String> = ctx
        .config()
        .map(|c| c.protected_branches())
        .unwrap_or_default()
        .iter()
        .filter_map(|name| ucg_git::commit::branch_tip(repo, name).ok())
        .map(|id| id.to_string())
        .collect();
    // The remote's old tip, when this repository has it (a tip never fetched hides nothing).
    let known: Vec<String> = ucg_git::repo::parse_id(remote_sha)
        .filter(|id| repo.find_object(*id).is_ok())
        .map(|id| vec![id.to_string()])
        .unwrap_or_default();
    ucg_git::carries_commits_of(repo, Path::new("."), local_sha, &known, epic_tip, &bases)
        .unwrap_or(true)
}

/// Each pushed ref is judged on its own: on the pushed commit's artifacts when it tracks the
/// artifact directory, else on the runs (in any work tree) whose epic branch it is — by local or
/// remote name, or by the epic's own commits it carries under any name; a ref that carries no
/// run's work passes. `ucg.gate.scope = all` judges every push on this
/// work tree's run as well. Deletions push nothing and pass.
/// Under `GIT_UCG_SKIP` (`skipped_to`: the remote's name) nothing is refused: each tip that would
/// have been is noted as a bypass instead.
fn pre_push(
    ctx: &Context,
    located: &GateInputs,
    stdin: &[u8],
    bypass: &str,
    skipped_to: Option<&str>,
) -> Result<u8> {
    let Ok(text) = std::str::from_utf8(stdin) else {
        eprintln!("git-ucg: the pushed refs on stdin are not text; refusing the push.");
        eprintln!("{bypass}");
        return Ok(1);
    };
    let repo = ctx.repo()?;
    let policy = ctx.gate_policy();
    let runs = ctx.work_tree_runs(located);
    let mut blocked = false;
    let mut answered = false;
    let mut skipped: Vec<(String, String, gate::Decision)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local_sha, remote_ref, remote_sha] = fields[..] else {
            eprintln!("git-ucg: cannot read the pushed ref line {line:?}; refusing the push.");
            eprintln!("{bypass}");
            return Ok(1);
        };
        if local_sha.bytes().all(|b| b == b'0') {
            continue;
        }
        // The ref's new commits may only record answers: judged once, when something blocks.
        let judged = std::cell::OnceCell::new();
        let mut refuse = |decision: &gate::Decision, where_read: &str| {
            if !decision.blocked() {
                return;
            }
            let answers_only = judged.get_or_init(|| {
                answers::of_push(ctx, local_sha, (remote_ref, remote_sha), located)
            });
            if answers_only.is_ok() {
                answered = true;
                return;
            }
            if let Some(remote) = skipped_to {
                let via = format!("push to {remote} {remote_ref} under GIT_UCG_SKIP");
                skipped.push((local_sha.to_string(), via, decision.clone()));
                return;
            }
            say_refusal(ctx, decision.clone(), "push", where_read, 0);
            answers::explain_refusal(answers_only, "push");
            blocked = true;
        };
        let committed = ArtifactSource::at_rev(repo, local_sha, &located.project_root).ok();
        if let Some(commit) = committed.filter(|c| c.is_dir(&located.impl_dir)) {
            let short: String = local_sha.chars().take(7).collect();
            let decision = located.decide(&commit, &policy);
            refuse(&decision, &format!("{local_ref} at {short}"));
            continue;
        }
        if policy.scope_all {
            let where_read = format!("{local_ref}: the work tree (ucg.gate.scope = all)");
            refuse(
                &located.decide(&ArtifactSource::WorkTree, &policy),
                &where_read,
            );
            continue;
        }
        let names: Vec<&str> = [local_ref, remote_ref]
            .iter()
            .filter_map(|r| r.strip_prefix("refs/heads/"))
            .collect();
        for run in &runs {
            let Some(branch) = run.epic_branch.as_deref() else {
                continue;
            };
            let decision = run.inputs.decide(&ArtifactSource::WorkTree, &policy);
            if !decision.blocked() {
                continue;
            }
            // Named as the epic branch, or carrying its work under any name (HEAD, a sha,
            // another branch): the run's either way.
            let carried = || carries_epic_work(ctx, repo, local_sha, remote_sha, branch);
            if !names.contains(&branch) && !carried() {
                continue;
            }
            let where_read = format!(
                "{local_ref}: the run in {}, whose epic branch is {branch}",
                run.inputs.project_root.display()
            );
            refuse(&decision, &where_read);
        }
    }
    if skipped_to.is_some() {
        let by = ucg_git::notes::configured_committer(repo);
        for (sha, via, decision) in &skipped {
            if let Some(id) = ucg_git::repo::parse_id(sha) {
                bypass::record(ctx, id, via, by.clone(), &[decision]);
            }
        }
        return Ok(0);
    }
    if blocked {
        eprintln!("{bypass}");
    } else if answered {
        return Ok(answers::passed("push"));
    }
    Ok(u8::from(blocked))
}
