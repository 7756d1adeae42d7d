//! `git ucg hooks install|uninstall|status|run`: git hooks that refuse commits and pushes while
//! the run waits on decisions (docs/product.md §5). The scripts live in the project's `hooks/` and
//! are embedded here; they `exec` `git ucg hooks run <hook>`, which makes the decision.

mod managers;
mod merge_driver;
pub mod pass_cache;
mod receive;
mod strict;

use crate::cli::{HookName, HooksInstallArgs, HooksRunArgs, HooksStatusArgs, HooksUninstallArgs};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::visible;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use ucg_git::hooks::{
    direct_hook_binary, fits_on_shebang, is_ours, is_runnable, run_git, run_hook_program,
};
use ucg_git::ArtifactSource;
use ucg_store::InstallError;
use ucg_ultracode::gate::{self, GateInputs};

const BAKED: &str = "@GIT_UCG_BAKED@";
/// Where a foreign hook goes when ours takes its place.
const CHAINED_SUFFIX: &str = ".pre-ucg";

/// Where the foreign hook ours chains sits: beside it in the hooks directory `dir`.
fn chained_path(dir: &Path, hook: HookName) -> std::path::PathBuf {
    dir.join(format!("{}{CHAINED_SUFFIX}", hook.file_name()))
}

/// How a hook starts git-ucg.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `hooks/direct`: the kernel runs this binary as the hook file's interpreter.
    Direct,
    /// `hooks/gate`, `hooks/reference-transaction`: a shell script that looks for the binary.
    Script,
}

/// The file of `hook` in `form`: every gate hook is one template with its name filled in; the
/// reference-transaction script, run for every ref update, filters in the shell first; the
/// shared remote's pre-receive hook has its own pair, without the pusher's bypass.
fn template(hook: HookName, form: Form) -> String {
    let text = match (form, hook) {
        (Form::Direct, HookName::PreReceive) => include_str!("../../hooks/direct-pre-receive"),
        (Form::Direct, _) => include_str!("../../hooks/direct"),
        (Form::Script, HookName::ReferenceTransaction) => {
            include_str!("../../hooks/reference-transaction")
        }
        (Form::Script, HookName::PreReceive) => include_str!("../../hooks/pre-receive"),
        (Form::Script, _) => include_str!("../../hooks/gate"),
    };
    text.replace("@HOOK@", hook.file_name())
}

/// The file as installed: the template with `binary` (this one) baked in — on the `#!` line, or
/// single-quoted for sh.
fn hook_file(hook: HookName, form: Form, binary: &Path) -> String {
    let binary = binary.to_string_lossy();
    let baked = match form {
        Form::Direct => binary.into_owned(),
        Form::Script => sh_escape(&binary),
    };
    template(hook, form).replace(BAKED, &baked)
}

/// `text` made fit to stand between single quotes in sh.
fn sh_escape(text: &str) -> String {
    text.replace('\'', "'\\''")
}

/// The hooks `--only` names, else the server's (`--server`), else the default set (with
/// `--all-commits`, the prepare-commit-msg hook too).
fn selected(only: &[HookName], server: bool, all_commits: bool) -> Vec<HookName> {
    if !only.is_empty() {
        return only.to_vec();
    }
    if server {
        return vec![HookName::PreReceive];
    }
    let mut hooks = HookName::DEFAULT.to_vec();
    if all_commits {
        hooks.push(HookName::PrepareCommitMsg);
    }
    hooks
}

/// Whether `GIT_UCG_SKIP` skips `hook`: `1`, or a comma list naming it.
fn skipped(hook: HookName) -> bool {
    std::env::var("GIT_UCG_SKIP").is_ok_and(|value| {
        value
            .split(',')
            .map(str::trim)
            .any(|name| name == "1" || name == hook.file_name())
    })
}

pub(crate) fn run_install(ctx: &Context, args: &HooksInstallArgs) -> Result<u8> {
    let (dir, configured) = ctx.hooks_dir()?;
    // A hook manager runs the hooks here: the gate goes in its configuration, not over its hooks.
    let mut hooks_managed = false;
    if !args.hooks_path_ok && !args.server {
        let found = managers::detect(ctx.try_project_root().as_deref(), &dir);
        let missing: Vec<&managers::Found> = found.iter().filter(|f| f.gated.is_empty()).collect();
        if !missing.is_empty() {
            return Err(Error::new(format!(
                "not installing git-ucg's hooks where a hook manager runs them\n\n{}",
                managers::refusal(&missing)
            ))
            .hint("install git-ucg's own hooks anyway (a hook already there is chained): git ucg hooks install --hooks-path-ok"));
        }
        for f in &found {
            println!(
                "gated through {}: {} runs git-ucg's gate ({}); no hook written",
                f.manager.name(),
                f.config.display(),
                f.gated.join(", ")
            );
            if !f.installed {
                println!(
                    "  but {}'s own hooks are not where git runs hooks ({}): run `{}`",
                    f.manager.name(),
                    dir.display(),
                    f.manager.install_command()
                );
            }
            hooks_managed = true;
        }
    }
    if let Some(raw) = configured.as_ref().filter(|_| !hooks_managed) {
        let home = ctx.hooks_home()?;
        let outside = !dir.starts_with(ucg_store::lexical_normal(&home));
        if outside && !args.hooks_path_ok {
            return Err(Error::new(format!(
                "core.hooksPath is {raw} ({}): it is outside this repository (shared by other repositories); not installing there",
                dir.display()
            ))
            .hint("install anyway (our hook chains the one there): git ucg hooks install --hooks-path-ok")
            .hint("or call `git ucg hooks run pre-commit` / `git ucg hooks run pre-push` from that directory's hooks")
            .hint("or unset it for this repository: git config --unset core.hooksPath"));
        }
    }
    if !hooks_managed {
        ucg_store::create_dirs(&dir)
            .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    }
    // The kernel starts this binary for a direct hook: a shell start less per hook. `--script`
    // installs the scripts that look for the binary at every run; so does a binary whose path
    // cannot stand on a `#!` line.
    let binary = std::env::current_exe().unwrap_or_default();
    let form = match args.script || !fits_on_shebang(&binary) {
        true => Form::Script,
        false => Form::Direct,
    };
    let hooks = match hooks_managed {
        true => Vec::new(),
        false => selected(&args.only, args.server, args.all_commits),
    };
    for hook in hooks {
        let path = dir.join(hook.file_name());
        let chained = chained_path(&dir, hook);
        let exists = std::fs::symlink_metadata(&path).is_ok();
        if exists && !is_ours(&path) {
            // A chained hook is the user's; it is never overwritten.
            if std::fs::symlink_metadata(&chained).is_ok() {
                return Err(Error::new(format!(
                    "{} is not ours, and {} already holds the hook chained before it",
                    path.display(),
                    chained.display()
                ))
                .hint("keep the one you want: merge them into one script, or move one aside, then install again"));
            }
            ucg_store::rename(&path, &chained)
                .map_err(|e| Error::new(format!("cannot move {} aside: {e}", path.display())))?;
            println!("chained: {} → {}", hook.file_name(), chained.display());
        }
        // git runs the reference-transaction hook five times for a commit, and all but one
        // transaction leave at once: a shell's start is cheaper than git-ucg's for that, so it
        // stays a script (which starts git-ucg only for a prepared branch update).
        let form = match hook {
            HookName::ReferenceTransaction => Form::Script,
            _ => form,
        };
        let text = hook_file(hook, form, &binary);
        if !args.force && ucg_store::read_text(&path).is_ok_and(|old| old == text) {
            println!("up to date: {}", path.display());
            continue;
        }
        write_executable(&path, &text)?;
        println!("installed: {}", path.display());
    }
    if args.strict {
        let root = ctx.project_root()?;
        git_config(&root, &["config", "--local", "ucg.gate.strict", "true"])?;
        println!("strict: ucg.gate.strict = true");
    }
    if args.agent {
        agent::install(&ctx.project_root()?)?;
    }
    if args.merge_driver {
        merge_driver::install(ctx, &ctx.project_root()?)?;
    }
    Ok(0)
}

fn write_executable(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    ucg_store::install_executable(path, text.as_bytes()).map_err(|e| match e {
        InstallError::NoTemporary(e) => {
            Error::new(format!("cannot write in {}: {e}", dir.display()))
        }
        InstallError::Write(e) => Error::from(e),
        InstallError::Install(e) => Error::new(format!("cannot install {}: {e}", path.display())),
    })
}

fn git_config(root: &Path, args: &[&str]) -> Result<()> {
    let succeeded = run_git(root, args).map_err(|e| Error::new(format!("cannot run git: {e}")))?;
    if succeeded {
        Ok(())
    } else {
        Err(Error::new(format!("git {} failed", args.join(" "))))
    }
}

pub(crate) fn run_uninstall(ctx: &Context, args: &HooksUninstallArgs) -> Result<u8> {
    let (dir, _) = ctx.hooks_dir()?;
    let hooks = match args.only.is_empty() {
        true => HookName::ALL.to_vec(),
        false => args.only.clone(),
    };
    for hook in hooks {
        let path = dir.join(hook.file_name());
        let chained = chained_path(&dir, hook);
        let present = std::fs::symlink_metadata(&path).is_ok();
        if present && !is_ours(&path) {
            println!("left alone: {} (not ours)", path.display());
            continue;
        }
        if std::fs::symlink_metadata(&chained).is_ok() {
            // One rename puts the chained hook back over ours: never a moment with neither.
            ucg_store::rename(&chained, &path)
                .map_err(|e| Error::new(format!("cannot restore {}: {e}", chained.display())))?;
            println!("restored: {}", path.display());
        } else if present {
            ucg_store::remove_if_present(&path)
                .map_err(|e| Error::new(format!("cannot remove {}: {e}", path.display())))?;
            println!("removed: {}", path.display());
        }
    }
    if args.agent {
        agent::uninstall(&ctx.project_root()?)?;
    }
    // The whole uninstall takes the merge driver out too; `--only` names hooks, and keeps it. A
    // bare repository (the server's) has no work tree, so no merge driver.
    if let Some(root) = ctx.try_project_root().filter(|_| args.only.is_empty()) {
        merge_driver::uninstall(&root)?;
    }
    Ok(0)
}

#[derive(serde::Serialize)]
struct HookState {
    hook: &'static str,
    path: String,
    /// `active`, `inactive` (ours, where git does not look), `broken` (the binary a direct hook
    /// names is gone: git cannot run it and refuses), `foreign`, `absent`.
    state: &'static str,
    /// The binary a direct hook starts (`None` for a script, which looks for it at every run).
    runs: Option<String>,
    chained: Option<String>,
}

pub(crate) fn run_status(ctx: &Context, args: &HooksStatusArgs) -> Result<u8> {
    let (dir, configured) = ctx.hooks_dir()?;
    let repo = ctx.repo()?;
    let default_dir = std::path::absolute(repo.common_dir().join("hooks"))?;
    // A bare repository is where pushes go: its hook is pre-receive, and a commit hook there is
    // listed only when one is present; a checkout's list is the other way round.
    let bare = ctx.is_bare();
    let mut states = Vec::new();
    for hook in HookName::ALL {
        let path = dir.join(hook.file_name());
        let chained = chained_path(&dir, hook);
        let expected = hook.is_server_side() == bare;
        let stray = default_dir.join(hook.file_name());
        let present = [&path, &chained, &stray]
            .iter()
            .any(|p| std::fs::symlink_metadata(p).is_ok());
        if !expected && !present {
            continue;
        }
        let executable =
            std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        let interpreter = direct_hook_binary(&path);
        let interpreter_gone = interpreter.as_deref().is_some_and(|b| !is_runnable(b));
        let state = match (path.exists(), is_ours(&path)) {
            // git cannot start it, and refuses every commit (or push) until it is reinstalled.
            (true, true) if interpreter_gone => "broken",
            (true, true) if executable => "active",
            (true, true) => "inactive",
            (true, false) => "foreign",
            (false, _) => "absent",
        };
        states.push(HookState {
            hook: hook.file_name(),
            path: path.display().to_string(),
            state,
            runs: interpreter.map(|p| p.display().to_string()),
            chained: chained.exists().then(|| chained.display().to_string()),
        });
        // Ours, but where git does not look (core.hooksPath points elsewhere).
        if default_dir != dir && is_ours(&stray) {
            states.push(HookState {
                hook: hook.file_name(),
                path: stray.display().to_string(),
                state: "inactive",
                runs: direct_hook_binary(&stray).map(|p| p.display().to_string()),
                chained: None,
            });
        }
    }
    let strict = repo
        .config_snapshot()
        .boolean("ucg.gate.strict")
        .unwrap_or(false);
    let agent = ctx
        .try_project_root()
        .is_some_and(|root| agent::installed(&root));
    // What the pre-receive hook guards, where it runs.
    let protected = ctx.gate_protected();
    let merge_driver = ctx
        .try_project_root()
        .map(|root| merge_driver::state(ctx, &root));
    let managers = managers::detect(ctx.try_project_root().as_deref(), &dir);
    let gated_through: Vec<&str> = managers
        .iter()
        .filter(|f| !f.gated.is_empty())
        .map(|f| f.manager.name())
        .collect();
    if args.json.on {
        return crate::output::print_json(&serde_json::json!({
            "schema": "git-ucg.hooks/1",
            "hooks_dir": dir.display().to_string(),
            "core_hooks_path": configured,
            "hooks": states,
            "strict": strict,
            "agent_stop_hook": agent,
            "protected": protected,
            "merge_driver": merge_driver,
            "managers": managers,
            "gated_through": gated_through,
        }));
    }
    let mut out = ctx.paged_output();
    writeln!(
        out,
        "git runs hooks from {}{}",
        dir.display(),
        configured
            .as_ref()
            .map(|c| format!(" (core.hooksPath = {c})"))
            .unwrap_or_default()
    )?;
    let width = states.iter().map(|s| s.hook.len()).max().unwrap_or(0);
    for s in &states {
        let what = match s.state {
            "active" => "installed, git runs it",
            "inactive" => "installed but inactive: git does not run it from there",
            "foreign" => "another hook, not git-ucg's",
            "broken" => "BROKEN: its binary is gone; git refuses until it is reinstalled (git ucg hooks install)",
            _ => "not installed",
        };
        writeln!(out, "  {:<width$}  {what}  ({})", s.hook, s.path)?;
        if let Some(binary) = &s.runs {
            writeln!(out, "  {:<width$}  git starts {binary}", "")?;
        }
        if let Some(chained) = &s.chained {
            writeln!(out, "  {:<width$}  chains {chained}, run first", "")?;
        }
    }
    for f in &managers {
        let config = f.config.display();
        let name = f.manager.name();
        if f.gated.is_empty() {
            writeln!(
                out,
                "{name} manages hooks here ({config}) but does not run git-ucg's gate: `git ucg hooks install` prints what to add"
            )?;
            continue;
        }
        writeln!(
            out,
            "gated through {name} ({config}): {}",
            f.gated.join(", ")
        )?;
        if !f.installed {
            writeln!(
                out,
                "  but {name}'s own hooks are not where git runs hooks ({}): run `{}`",
                dir.display(),
                f.manager.install_command()
            )?;
        }
    }
    if let Ok(located) = ctx.gate_inputs(None) {
        if !located.impl_dir.is_dir() {
            writeln!(
                out,
                "warning: the artifact directory {} does not exist: the hooks gate nothing (check workflow.implementation_artifacts)",
                located.impl_dir.display()
            )?;
        }
    }
    if bare {
        let names: Vec<&str> = protected
            .iter()
            .map(String::as_str)
            .filter(|name| !name.is_empty())
            .collect();
        let names = match names.is_empty() {
            true => "none".to_string(),
            false => names.join(", "),
        };
        writeln!(out, "protected (git config ucg.gate.protect): {names}")?;
        out.finish()?;
        return Ok(0);
    }
    writeln!(out, "strict mode: {}", if strict { "on" } else { "off" })?;
    writeln!(
        out,
        "agent Stop hook (git ucg budget tick): {}",
        if agent { "present" } else { "absent" }
    )?;
    // A bare repository (the server's) has no work tree to merge in.
    if let Some(merge_driver) = &merge_driver {
        writeln!(out, "{}", merge_driver::describe(merge_driver))?;
    }
    out.finish()?;
    Ok(0)
}

/// What the installed scripts call: the chained hook first, then the decision.
pub(crate) fn run_hook(ctx: &Context, args: &HooksRunArgs) -> Result<u8> {
    // pre-commit's entry: the stage and the pushed ref from its environment; pre-commit runs
    // its own chained (`.legacy`) hook, so ours is not looked for.
    let (hook, from_env) = match (args.hook, args.from_env) {
        (_, true) => {
            let (hook, line) = managers::pre_commit_stage(|rev| {
                let repo = ctx.repo().map_err(|e| e.render().trim().to_string())?;
                ucg_git::repo::commit_of(repo, rev).map(|id| id.to_string())
            })?;
            (hook, Some(line))
        }
        (Some(hook), false) => (hook, None),
        (None, false) => return Err(Error::new("which hook? git ucg hooks run <HOOK>")),
    };
    // The shared remote's gate is not the pusher's to skip (a local push hands the pusher's
    // environment to the hook).
    if !hook.is_server_side() && skipped(hook) {
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
    if let Ok(dir) = dir {
        let chained = chained_path(&dir, hook);
        // As git does, a hook file that is not executable is not run.
        if is_runnable(&chained) {
            let code = run_chained(&chained, &args.args, &stdin)?;
            if code != 0 {
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
        Err(error) => {
            eprint!("{}", error.render());
            eprintln!("git-ucg: {verb} refused: the run's artifacts cannot be located (above).");
            eprintln!("{bypass}");
            return Ok(1);
        }
    };
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
        return pre_push(ctx, &located, &stdin, &bypass);
    }
    let gated = ctx.gated_sources();
    let watch = pass_cache::Watch::start(ctx, hook, &located);
    if located.impl_dir.is_dir() {
        let decision = located.decide(&ArtifactSource::WorkTree, &gated);
        if decision.blocked() {
            let decision = decision.with_deciders(&ctx.decider_rules());
            let refusal = gate::refusal(&decision, Some(verb), "the work tree");
            eprintln!("{}{bypass}", visible::escape_controls(&refusal, &[]));
            return Ok(1);
        }
    }
    // The run is the repository's, not a worktree's: a commit on a branch another work tree's
    // run lands on waits for that run's decisions too.
    let branches: Vec<String> = match hook {
        HookName::ReferenceTransaction => String::from_utf8_lossy(&stdin)
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
    let mut blocked = false;
    for run in ctx.other_work_tree_runs(&located.project_root) {
        let Some(branch) = run.epic_branch.as_ref().filter(|b| branches.contains(b)) else {
            continue;
        };
        let decision = run.inputs.decide(&ArtifactSource::WorkTree, &gated);
        if decision.blocked() {
            let where_read = format!(
                "the run in {}, whose epic branch is {branch}",
                run.inputs.project_root.display()
            );
            let decision = decision.with_deciders(&ctx.decider_rules());
            let refusal = gate::refusal(&decision, Some(verb), &where_read);
            eprint!("{}", visible::escape_controls(&refusal, &[]));
            blocked = true;
        }
    }
    if blocked {
        eprintln!("{bypass}");
    } else if let Some(watch) = watch {
        watch.remember_pass(ctx);
    }
    Ok(u8::from(blocked))
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
        let alias = ctx
            .repo()
            .ok()
            .and_then(|repo| ucg_git::config_string(repo, &format!("alias.{command}")));
        // A shell alias (`!…`) runs git as a child: the hook's parent is then that git.
        match alias.as_deref().and_then(|a| a.split_whitespace().next()) {
            Some(first) if !first.starts_with('!') => command = first.to_string(),
            _ => break,
        }
    }
    Some(command)
}

fn run_chained(path: &Path, args: &[std::ffi::OsString], stdin: &[u8]) -> Result<u8> {
    run_hook_program(path, args, stdin).map_err(|e| {
        Error::new(format!(
            "cannot run the chained hook {}: {e}",
            path.display()
        ))
    })
}

/// Each pushed ref is judged on its own: on the pushed commit's artifacts when it tracks the
/// artifact directory, else on the runs (in any work tree) whose epic branch it is — local or
/// remote name; a ref no run lands on passes. `ucg.gate.scope = all` judges every push on this
/// work tree's run as well. Deletions push nothing and pass.
fn pre_push(ctx: &Context, located: &GateInputs, stdin: &[u8], bypass: &str) -> Result<u8> {
    let Ok(text) = std::str::from_utf8(stdin) else {
        eprintln!("git-ucg: the pushed refs on stdin are not text; refusing the push.");
        eprintln!("{bypass}");
        return Ok(1);
    };
    let repo = ctx.repo()?;
    let gated = ctx.gated_sources();
    let scope_all = ctx.gate_scope_all();
    let runs = ctx.work_tree_runs(located);
    let mut blocked = false;
    let mut refuse = |decision: &gate::Decision, where_read: &str| {
        if decision.blocked() {
            let decision = decision.clone().with_deciders(&ctx.decider_rules());
            let refusal = gate::refusal(&decision, Some("push"), where_read);
            eprint!("{}", visible::escape_controls(&refusal, &[]));
            blocked = true;
        }
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [local_ref, local_sha, remote_ref, _remote_sha] = fields[..] else {
            eprintln!("git-ucg: cannot read the pushed ref line {line:?}; refusing the push.");
            eprintln!("{bypass}");
            return Ok(1);
        };
        if local_sha.bytes().all(|b| b == b'0') {
            continue;
        }
        let committed = ArtifactSource::at_rev(repo, local_sha, &located.project_root).ok();
        if let Some(commit) = committed.filter(|c| c.is_dir(&located.impl_dir)) {
            let short: String = local_sha.chars().take(7).collect();
            refuse(
                &located.decide(&commit, &gated),
                &format!("{local_ref} at {short}"),
            );
            continue;
        }
        if scope_all {
            let where_read = format!("{local_ref}: the work tree (ucg.gate.scope = all)");
            refuse(
                &located.decide(&ArtifactSource::WorkTree, &gated),
                &where_read,
            );
            continue;
        }
        let names: Vec<&str> = [local_ref, remote_ref]
            .iter()
            .filter_map(|r| r.strip_prefix("refs/heads/"))
            .collect();
        for run in &runs {
            let Some(branch) = run.epic_branch.as_deref().filter(|b| names.contains(b)) else {
                continue;
            };
            let where_read = format!(
                "{local_ref}: the run in {}, whose epic branch is {branch}",
                run.inputs.project_root.display()
            );
            refuse(
                &run.inputs.decide(&ArtifactSource::WorkTree, &gated),
                &where_read,
            );
        }
    }
    if blocked {
        eprintln!("{bypass}");
    }
    Ok(u8::from(blocked))
}

/// The Claude Code Stop hook entry in `<root>/.claude/settings.local.json`.
mod agent {
    use crate::error::{Error, Result};
    use serde_json::{json, Value};
    use std::path::{Path, PathBuf};

    const COMMAND: &str = "git ucg budget tick";

    fn settings(root: &Path) -> PathBuf {
        root.join(".claude/settings.local.json")
    }

    fn read(path: &Path) -> Result<Value> {
        match ucg_store::read_if_present(path) {
            Ok(Some(bytes)) => serde_json::from_slice(&bytes).map_err(|e| {
                Error::new(format!(
                    "{}: not JSON ({e}); not touching it",
                    path.display()
                ))
                .hint("repair it by hand, then run the command again")
            }),
            Ok(None) => Ok(json!({})),
            Err(e) => Err(Error::new(format!("cannot read {}: {e}", path.display()))),
        }
    }

    fn ours(hook: &Value) -> bool {
        hook.get("command").and_then(Value::as_str) == Some(COMMAND)
    }

    pub(crate) fn installed(root: &Path) -> bool {
        read(&settings(root)).is_ok_and(|doc| {
            doc.pointer("/hooks/Stop")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|group| group.get("hooks")?.as_array())
                .flatten()
                .any(ours)
        })
    }

    fn write(path: &Path, doc: &Value) -> Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        ucg_store::create_dirs(dir)
            .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
        let mut text = serde_json::to_string_pretty(doc)
            .map_err(|e| Error::new(format!("cannot encode {}: {e}", path.display())))?;
        text.push('\n');
        let lock = ucg_store::lock_dir(dir)?;
        ucg_store::write_atomic(&lock, path, text.as_bytes())?;
        Ok(())
    }

    pub(crate) fn install(root: &Path) -> Result<()> {
        let path = settings(root);
        if installed(root) {
            println!("agent: the Stop hook is already in {}", path.display());
            return Ok(());
        }
        let mut doc = read(&path)?;
        let Some(object) = doc.as_object_mut() else {
            return Err(Error::new(format!(
                "{}: not a JSON object; not touching it",
                path.display()
            )));
        };
        let hooks = object.entry("hooks").or_insert_with(|| json!({}));
        let Some(hooks) = hooks.as_object_mut() else {
            return Err(Error::new(format!(
                "{}: `hooks` is not an object; not touching it",
                path.display()
            )));
        };
        let stop = hooks.entry("Stop").or_insert_with(|| json!([]));
        let Some(stop) = stop.as_array_mut() else {
            return Err(Error::new(format!(
                "{}: `hooks.Stop` is not a list; not touching it",
                path.display()
            )));
        };
        stop.push(json!({"hooks": [{"type": "command", "command": COMMAND}]}));
        write(&path, &doc)?;
        println!(
            "agent: added the Stop hook ({COMMAND}) to {}",
            path.display()
        );
        Ok(())
    }

    pub(crate) fn uninstall(root: &Path) -> Result<()> {
        let path = settings(root);
        if !installed(root) {
            return Ok(());
        }
        let mut doc = read(&path)?;
        if let Some(stop) = doc.pointer_mut("/hooks/Stop").and_then(Value::as_array_mut) {
            for group in stop.iter_mut() {
                if let Some(hooks) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                    hooks.retain(|h| !ours(h));
                }
            }
            // A group we emptied goes; groups that still hold another hook stay.
            stop.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|h| !h.is_empty())
            });
        }
        write(&path, &doc)?;
        println!("agent: removed the Stop hook from {}", path.display());
        Ok(())
    }
}
