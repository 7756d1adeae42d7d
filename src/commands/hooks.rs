//! `git ucg hooks install|uninstall|status|run`: git hooks that refuse commits and pushes while
//! the run waits on decisions (docs/product.md §5). The scripts live in the project's `hooks/` and
//! are embedded here; they `exec` `git ucg hooks run <hook>`, which makes the decision.

mod agent;
mod answers;
mod bypass;
mod install;
mod managers;
mod merge_driver;
mod pass_cache;
mod receive;
mod run;
mod status;
mod strict;

pub(crate) use install::{run_install, run_uninstall};
pub(crate) use run::{passes_at_once, run_hook};
pub(crate) use status::run_status;

use crate::cli::{HookName, HooksInstallArgs, HooksRunArgs, HooksStatusArgs, HooksUninstallArgs};
use crate::context::Context;
use crate::error::{cannot, Error, Result};
use crate::render::visible;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use ucg_git::hooks::{
    direct_hook_binary, fits_on_shebang, is_ours, is_runnable, run_git, run_hook_program,
};
use ucg_git::ArtifactSource;
use ucg_store::InstallError;
use ucg_ultracode::gate::{self, Decision, GateInputs};

const BAKED: &str = "@GIT_UCG_BAKED@";
/// Where a foreign hook goes when ours takes its place.
const CHAINED_SUFFIX: &str = ".pre-ucg";

/// Where the foreign hook ours chains sits: beside it in the hooks directory `dir`.
fn chained_path(dir: &Path, hook: HookName) -> std::path::PathBuf {
    dir.join(format!("{}{CHAINED_SUFFIX}", hook.file_name()))
}

/// Where git ran the hook, with its environment (the index a `git commit -a` prepares, a push's
/// quarantined objects): where the git commands run, the repository the bypass notes go to.
fn here() -> &'static Path {
    Path::new(".")
}

/// A hook's refusal of `action` on stderr: the decision's deciders named, control characters
/// escaped, reflowed `prefix` columns narrower (git's `remote: ` on a server).
fn say_refusal(ctx: &Context, decision: Decision, action: &str, where_read: &str, prefix: usize) {
    let decision = decision.with_deciders(&ctx.decider_rules());
    let refusal = crate::render::refusal::refusal(&decision, Some(action), where_read, false);
    crate::output::say_narrower(&visible::escape_controls(&refusal, &[]), prefix);
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
    let mut hooks = HookName::defaults().to_vec();
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

fn git_config(root: &Path, args: &[&str]) -> Result<()> {
    let succeeded = run_git(root, args).map_err(|e| Error::new(format!("cannot run git: {e}")))?;
    if succeeded {
        Ok(())
    } else {
        Err(Error::new(format!("git {} failed", args.join(" "))))
    }
}
