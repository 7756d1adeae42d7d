//! `hooks install` and `hooks uninstall`: the hook files (direct or script, a foreign hook chained
//! beside ours), the merge driver and the agent's Stop hook.

use super::*;

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
        ucg_store::create_dirs(&dir).map_err(cannot("create", &dir))?;
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
        ucg_store::install_executable(&path, text.as_bytes()).map_err(|e| match e {
            InstallError::NoTemporary(e) => cannot("write in", &dir)(e),
            InstallError::Write(e) => Error::from(e),
            InstallError::Install(e) => cannot("install", &path)(e),
        })?;
        println!("installed: {}", path.display());
    }
    if args.strict {
        let key = crate::config_keys::GATE_STRICT.name;
        git_config(&ctx.project_root()?, &["config", "--local", key, "true"])?;
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

pub(crate) fn run_uninstall(ctx: &Context, args: &HooksUninstallArgs) -> Result<u8> {
    let (dir, _) = ctx.hooks_dir()?;
    let hooks = match args.only.is_empty() {
        true => HookName::all().to_vec(),
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
            ucg_store::rename(&chained, &path).map_err(cannot("restore", &chained))?;
            println!("restored: {}", path.display());
        } else if present {
            ucg_store::remove_if_present(&path).map_err(cannot("remove", &path))?;
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
