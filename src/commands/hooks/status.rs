//! `hooks status`: which hooks are ours, chained, missing or another's, and what else gates.

use super::*;

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
    for &hook in HookName::all() {
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
    let strict = ctx.strict_mode();
    let root = ctx.try_project_root();
    let agent = root.as_deref().is_some_and(agent::installed);
    // What the pre-receive hook guards, where it runs.
    let protected = ctx.gate_protected();
    let merge_driver = root.as_deref().map(|root| merge_driver::state(ctx, root));
    let managers = managers::detect(root.as_deref(), &dir);
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
    let mut out = ctx.paged_output().prose();
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
            "broken" => "BROKEN: its binary is gone; git refuses until `git ucg hooks install` reinstalls it",
            _ => "not installed",
        };
        // Each hook is the directory above and its name; `--json` has each path whole.
        let inside = std::path::Path::new(&s.path) == dir.join(s.hook);
        match inside {
            true => writeln!(out, "  {:<width$}  {what}", s.hook)?,
            false => writeln!(out, "  {:<width$}  {what}  ({})", s.hook, s.path)?,
        }
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
