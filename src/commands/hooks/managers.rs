//! The hook managers the gate runs under instead of git-ucg's own hooks: pre-commit (the Python
//! framework: `.pre-commit-hooks.yaml` at the project's root, whose entry is `git-ucg hooks run
//! --from-env`), lefthook and husky (one snippet each in `hooks/managers/`, which README includes
//! verbatim and `hooks install` prints). Which of them runs the gate is `git::hook_managers`.

use crate::cli::HookName;
use crate::error::{Error, Result};
use ucg_git::hook_managers::stage_hook;
pub use ucg_git::hook_managers::{detect, Found, Manager};

/// The `.pre-commit-config.yaml` entry (and the install types it needs); its `repo:` and `rev:`
/// are Cargo.toml's `repository` and `v<version>` (tests/cli/managers.rs holds them to it).
pub(crate) const PRE_COMMIT_SNIPPET: &str =
    include_str!("../../../hooks/managers/pre-commit-config.yaml");
/// The `lefthook.yml` scripts.
pub(crate) const LEFTHOOK_SNIPPET: &str = include_str!("../../../hooks/managers/lefthook.yml");
/// A manager's file for each hook the gate runs in, `hooks/managers/<prefix><hook>`.
macro_rules! per_hook {
    ($prefix:literal: $($hook:literal),*) => {
        [$(($hook, include_str!(concat!("../../../hooks/managers/", $prefix, $hook)))),*]
    };
}
/// The scripts it names, `.lefthook/<hook>/git-ucg-gate`.
pub(crate) const LEFTHOOK_SCRIPTS: [(&str, &str); 3] =
    per_hook!("lefthook-": "pre-commit", "pre-merge-commit", "pre-push");
/// husky's hook files, `.husky/<hook>`.
pub(crate) const HUSKY_FILES: [(&str, &str); 3] =
    per_hook!("husky-": "pre-commit", "pre-merge-commit", "pre-push");

/// What `hooks install` says instead of writing hooks where a manager runs them: for each, what to
/// add to its configuration.
pub(crate) fn refusal(found: &[&Found]) -> String {
    let mut out = String::new();
    for (i, f) in found.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let config = f.config.display();
        let name = f.manager.name();
        match f.manager {
            Manager::PreCommit => {
                out.push_str(&format!(
                    "pre-commit manages this repository's hooks ({config}): add git-ucg's gate to it \
(the `repos:` entry, and the hook types to install), then run `pre-commit install`:\n\n"
                ));
                out.push_str(&indent(PRE_COMMIT_SNIPPET));
            }
            Manager::Lefthook => {
                out.push_str(&format!(
                    "lefthook manages this repository's hooks ({config}): add git-ucg's gate to its \
configuration and these scripts, then run `lefthook install`:\n\n"
                ));
                out.push_str(&indent(LEFTHOOK_SNIPPET));
                for (hook, text) in LEFTHOOK_SCRIPTS {
                    out.push_str(&format!("\n  .lefthook/{hook}/git-ucg-gate:\n"));
                    out.push_str(&indent(text));
                }
            }
            Manager::Husky => {
                out.push_str(&format!(
                    "husky manages this repository's hooks ({config}): add git-ucg's gate as these \
files (append the line to a file that is already there):\n"
                ));
                for (hook, text) in HUSKY_FILES {
                    out.push_str(&format!("\n  .husky/{hook}:\n"));
                    out.push_str(&indent(text));
                }
            }
        }
        out.push_str(&format!(
            "\nThen `git ucg hooks status` says \"gated through {name}\"."
        ));
    }
    out
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("    {line}\n")).collect()
}

/// The fourth field of the push line `--from-env` makes: the remote's old value is not known.
pub(crate) const REMOTE_OLD_UNKNOWN: &str = "unknown";

/// `hooks run --from-env`, the pre-commit framework's entry: the git hook whose stage pre-commit
/// runs, and for a push the ref line git would have given the hook on stdin.
///
/// pre-commit exports no stage (as of 4.x; `PRE_COMMIT_HOOK_STAGE`, when set, is obeyed). A push
/// is known by the variables pre-commit sets only for one — `PRE_COMMIT_LOCAL_BRANCH`,
/// `PRE_COMMIT_REMOTE_BRANCH` (the ref names of git's line), `PRE_COMMIT_TO_REF` (the local
/// commit; absent when the push carries the root commit, the local ref then names it); a merge
/// commit by `GIT_REFLOG_ACTION`, which `git merge` and `git pull` set for their hooks; anything
/// else is a commit (strict mode included: the stricter reading).
pub(crate) fn pre_commit_stage(
    resolve: impl Fn(&str) -> std::result::Result<String, String>,
) -> Result<(HookName, Vec<u8>)> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if var("PRE_COMMIT").is_none() && var("PRE_COMMIT_HOOK_STAGE").is_none() {
        return Err(Error::new(
            "`hooks run --from-env` is pre-commit's entry, and this is not pre-commit's environment (PRE_COMMIT is not set)",
        )
        .hint("from git, or another hook manager: git ucg hooks run pre-commit (or pre-push, with git's ref lines on stdin)"));
    }
    let push_vars =
        var("PRE_COMMIT_LOCAL_BRANCH").is_some() || var("PRE_COMMIT_REMOTE_BRANCH").is_some();
    let hook = match var("PRE_COMMIT_HOOK_STAGE") {
        Some(stage) => match stage_hook(&stage) {
            Some("pre-push") => HookName::PrePush,
            Some("pre-merge-commit") => HookName::PreMergeCommit,
            Some(_) => HookName::PreCommit,
            None => {
                return Err(Error::new(format!(
                    "PRE_COMMIT_HOOK_STAGE is {stage:?}: git-ucg's gate runs in the pre-commit, pre-merge-commit and pre-push stages"
                )))
            }
        },
        None if push_vars => HookName::PrePush,
        None if var("GIT_REFLOG_ACTION").is_some_and(|action| {
            action.starts_with("merge") || action.starts_with("pull")
        }) =>
        {
            HookName::PreMergeCommit
        }
        None => HookName::PreCommit,
    };
    if hook != HookName::PrePush {
        return Ok((hook, Vec::new()));
    }
    let (Some(local), Some(remote)) = (
        var("PRE_COMMIT_LOCAL_BRANCH"),
        var("PRE_COMMIT_REMOTE_BRANCH"),
    ) else {
        return Err(Error::new(
            "pre-push under pre-commit without the pushed refs (PRE_COMMIT_LOCAL_BRANCH and PRE_COMMIT_REMOTE_BRANCH): refusing the push",
        )
        .hint("pre-commit 2.15 or later sets them; bypass once: GIT_UCG_SKIP=1 git push …, or git push --no-verify"));
    };
    let local_sha = match var("PRE_COMMIT_TO_REF") {
        Some(sha) => sha,
        None => resolve(&local).map_err(|e| {
            Error::new(format!(
                "cannot read the pushed commit of {local} (pre-commit gave no PRE_COMMIT_TO_REF): {e}; refusing the push"
            ))
        })?,
    };
    // git's fourth field, the remote's value before the push, is not passed on (pre-commit's
    // PRE_COMMIT_FROM_REF is that value for a ref the remote has, else the parent of the first
    // commit no remote-tracking ref holds): it is asked of the remote when an answer-only push
    // needs it.
    let line = format!("{local} {local_sha} {remote} {REMOTE_OLD_UNKNOWN}\n");
    Ok((HookName::PrePush, line.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_managers_know_every_client_hook() {
        let names: Vec<&str> = HookName::all()
            .iter()
            .copied()
            .filter(|hook| !hook.is_server_side())
            .map(HookName::file_name)
            .collect();
        assert_eq!(names, ucg_git::hook_managers::CLIENT_HOOKS);
    }
}
