//! `git ucg resume`: the read-only hand-back plan — where a resume re-enters the run, and the
//! checklist of what it re-asserts (never rebuilds), each item ok or missing with the command that
//! fixes it.

use crate::cli::ResumeArgs;
use crate::context::Context;
use crate::error::Result;
use crate::render::file_name;
use std::io::Write;
use ucg_git::ArtifactSource;
use ucg_ultracode::epic;
use ucg_ultracode::resume::{
    agent_hooks_check, baseline_check, branch_check, latch_check, route_of, Check,
};

pub(crate) fn run(ctx: &Context, args: &ResumeArgs) -> Result<u8> {
    let repo = ctx.repo()?;
    let inputs = ctx.epic_inputs(args.impl_artifacts.dir.as_deref(), args.epic.clone())?;
    let loaded = epic::load(
        repo,
        &inputs,
        &ArtifactSource::WorkTree,
        None,
        epic::Detail::Full,
    );
    let route = route_of(loaded.as_ref().ok());
    let mut checks = vec![decisions_check(ctx, args)];
    match &loaded {
        Ok(epic) => checks.push(branch_check(epic)),
        Err(_) => checks.push(Check {
            item: "epic branch",
            state: "missing",
            detail: "no epic to name a branch for".into(),
            fix: Some("git ucg epic --epic <id> shows an epic's branch".into()),
            by_resume: false,
        }),
    }
    checks.push(git_hooks_check(ctx));
    checks.push(agent_hooks_check(
        &inputs.project_root,
        "the resume re-merges them (the budget hook alone: `git ucg hooks install --agent`)",
    ));
    checks.push(allowlist_check(ctx));
    checks.push(latch_check(&inputs.impl_dir));
    checks.push(baseline_check(&inputs.impl_dir, route.story.as_deref()));

    if args.json.on {
        return crate::output::print_json(&serde_json::json!({
            "schema": "git-ucg.resume/1",
            "epic": loaded.as_ref().ok().map(|e| e.id.clone()),
            "route": route,
            "checklist": checks,
        }));
    }
    let root = inputs.project_root.display().to_string();
    // Paths from the project root, as the hand-back names them.
    let from_root = |text: &str| text.replace(&format!("{root}/"), "");
    let mut out = ctx.paged_output().prose();
    let at = crate::render::restart::at_story(&route);
    writeln!(out, "Resume: {}{at}", route.stage)?;
    writeln!(out, "  {}", route.why)?;
    let (yours, resumes): (Vec<&Check>, Vec<&Check>) = checks.iter().partition(|c| c.needs_you());
    let nothing = if yours.is_empty() { " nothing" } else { "" };
    writeln!(out, "\nNeeds you:{nothing}")?;
    for check in &yours {
        writeln!(
            out,
            "  {:<8} {:<13} {}",
            check.state,
            check.item,
            from_root(&check.detail)
        )?;
        if let Some(fix) = &check.fix {
            writeln!(out, "  {:<8} {:<13} fix: {}", "", "", from_root(fix))?;
        }
    }
    writeln!(
        out,
        "\nNothing to do (in place, or re-asserted by the resume itself):"
    )?;
    for check in &resumes {
        let state = if check.state == "ok" { "ok" } else { "resume" };
        writeln!(
            out,
            "  {state:<8} {:<13} {}",
            check.item,
            from_root(&check.detail)
        )?;
        if let (Some(fix), "missing") = (&check.fix, check.state) {
            writeln!(out, "  {:<8} {:<13} {}", "", "", from_root(fix))?;
        }
    }
    writeln!(out)?;
    let restart = crate::render::restart::said(
        &route,
        &inputs.impl_dir,
        &inputs.project_root,
        crate::output::columns(),
    );
    out.write_all(restart.as_bytes())?;
    out.finish()?;
    Ok(0)
}

/// The decisions the gate blocks on: answered, or the run stops on them again at its next
/// preflight — the first thing the operator does before a resume.
fn decisions_check(ctx: &Context, args: &ResumeArgs) -> Check {
    let impl_flag = args.impl_artifacts.dir.as_deref();
    let decision = ctx
        .gate_source(None, impl_flag, "resume")
        .map(|(located, source)| located.decide(&source, &ctx.gate_policy()));
    let missing = |detail: String, fix: Option<String>| ("missing", detail, fix);
    let (state, detail, fix) = match decision {
        // What cannot be read comes first: the run stops on it as it stops on a question.
        Ok(decision) if !decision.blockers.is_empty() => {
            let first = &decision.blockers[0];
            missing(
                format!("{}: {}", file_name(&first.artifact), first.reason),
                Some(first.way_out.clone()),
            )
        }
        Ok(decision) if decision.blocking.is_empty() => ("ok", "none pending".to_string(), None),
        Ok(decision) => {
            let n = decision.blocking.len();
            missing(
                format!(
                    "{n} pending: the run stops on {} again at its next preflight",
                    if n == 1 { "it" } else { "them" }
                ),
                Some("`git ucg resolve` answers them".to_string()),
            )
        }
        Err(crate::error::Error::Failure { message, .. }) => {
            missing(format!("not read: {message}"), None)
        }
        Err(_) => missing("not read: the artifacts".to_string(), None),
    };
    Check {
        item: "decisions",
        state,
        detail,
        fix,
        by_resume: false,
    }
}

/// Our pre-commit and pre-push hooks, executable, where git looks for hooks.
fn git_hooks_check(ctx: &Context) -> Check {
    use std::os::unix::fs::PermissionsExt;
    let Ok((dir, _)) = ctx.hooks_dir() else {
        return Check {
            item: "git hooks",
            state: "missing",
            detail: "no hooks directory (not in a repository with a work tree)".into(),
            fix: Some("git ucg hooks install".into()),
            by_resume: false,
        };
    };
    let active = |name: &str| {
        let path = dir.join(name);
        ucg_git::hooks::is_ours(&path)
            && std::fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    };
    // A hook manager (pre-commit, lefthook, husky) that runs the gate counts as the hook.
    let managers = ucg_git::hook_managers::detect(ctx.try_project_root().as_deref(), &dir);
    let through = |name: &str| {
        managers
            .iter()
            .find(|f| f.installed && f.gated.contains(&name))
            .map(|f| f.manager.name())
    };
    let missing: Vec<&str> = ["pre-commit", "pre-push"]
        .into_iter()
        .filter(|h| !active(h) && through(h).is_none())
        .collect();
    let mut names: Vec<&str> = ["pre-commit", "pre-push"]
        .into_iter()
        .filter_map(through)
        .collect();
    names.dedup();
    let present = match names.is_empty() {
        true => format!("pre-commit and pre-push in {}", dir.display()),
        false => format!(
            "pre-commit and pre-push gated through {} ({})",
            names.join(" and "),
            dir.display()
        ),
    };
    Check::of_parts(
        "git hooks",
        &missing,
        present,
        format!("not installed in {}", dir.display()),
        "git ucg hooks install",
        false,
    )
}

fn allowlist_check(ctx: &Context) -> Check {
    let count = ctx
        .config()
        .ok()
        .and_then(|c| c.expanded("allowlist_commands").ok().flatten())
        .and_then(|v| v.as_array().map(Vec::len))
        .unwrap_or(0);
    Check {
        item: "allowlist",
        state: if count > 0 { "ok" } else { "missing" },
        detail: format!(
            "{count} command{} in workflow.allowlist_commands (no script checks the agent's copy)",
            if count == 1 { "" } else { "s" }
        ),
        fix: Some("set workflow.allowlist_commands in _bmad/custom/ultracode-goal.toml".into()),
        by_resume: false,
    }
}
