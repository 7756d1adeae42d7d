//! `git ucg baseline start|end|check|show`: a story's anchors (docs/formats/ucg.md §1.7–1.10). The
//! baseline is written once and never regenerated (a resumed story keeps its evidence range);
//! the end marker is refreshed at every call; `check` is the guard's tests-ran freshness rule.

use crate::cli::{BaselineCommand, BaselineShowArgs, BaselineStoryArgs};
use crate::context::Context;
use crate::error::{cannot, Error, Result};
use ucg_ultracode::markers;

pub(crate) fn run(ctx: &Context, command: &BaselineCommand) -> Result<u8> {
    match command {
        BaselineCommand::Start(args) => start(ctx, args),
        BaselineCommand::End(args) => end(ctx, args),
        BaselineCommand::Check(args) => check(ctx, args),
        BaselineCommand::Show(args) => show(ctx, args),
    }
}

fn head(ctx: &Context) -> Result<String> {
    let id = ctx
        .repo()?
        .head_id()
        .map_err(|e| Error::new(format!("HEAD does not name a commit: {e}")))?;
    Ok(id.to_string())
}

fn start(ctx: &Context, args: &BaselineStoryArgs) -> Result<u8> {
    ucg_store::validate_story_id(&args.story)?;
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let name = markers::baseline_file(&args.story);
    ucg_store::create_dirs(&impl_dir).map_err(cannot("create", &impl_dir))?;
    // Decided under the lock, by presence alone: a baseline that exists in any form — unreadable,
    // not UTF-8, a dangling link — is never replaced.
    let lock = ucg_store::lock_dir(&impl_dir)?;
    let path = impl_dir.join(&name);
    if std::fs::symlink_metadata(&path).is_ok() {
        let text = ucg_store::read_file(&path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        let sha = markers::marker_sha(&text).unwrap_or("(no commit id)");
        println!("{name}: {sha} (mid-story, kept: a baseline is never regenerated)");
        if let Some(problem) = markers::form_problem(&text) {
            eprintln!("warning: {name} {problem}");
        }
        return Ok(0);
    }
    let sha = head(ctx)?;
    let bounds = || ctx.try_project_root().into_iter().collect();
    let target = ucg_store::write_target(&impl_dir, &name, bounds)?;
    ucg_store::write_atomic(&lock, &target, format!("{sha}\n").as_bytes())?;
    println!("{name}: {sha} (written at HEAD)");
    Ok(0)
}

fn end(ctx: &Context, args: &BaselineStoryArgs) -> Result<u8> {
    ucg_store::validate_story_id(&args.story)?;
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let name = markers::commit_file(&args.story);
    let sha = head(ctx)?;
    // Written atomically under the directory's lock, refreshed at every call.
    ucg_store::create_dirs(&impl_dir).map_err(cannot("create", &impl_dir))?;
    let lock = ucg_store::lock_dir(&impl_dir)?;
    let bounds = || ctx.try_project_root().into_iter().collect();
    let target = ucg_store::write_target(&impl_dir, &name, bounds)?;
    ucg_store::write_atomic(&lock, &target, format!("{sha}\n").as_bytes())?;
    println!("{name}: {sha}");
    Ok(0)
}

fn check(ctx: &Context, args: &BaselineStoryArgs) -> Result<u8> {
    ucg_store::validate_story_id(&args.story)?;
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let marker_name = markers::tests_ran_file(&args.story);
    let baseline_name = markers::baseline_file(&args.story);
    let read = |name: &str| {
        ucg_store::read_file(impl_dir.join(name))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let verdict = match (read(&marker_name), read(&baseline_name)) {
        (None, _) => Err(format!(
            "{marker_name} is missing: the tests have not run green for this story"
        )),
        (_, None) => Err(format!("{baseline_name} is missing or unreadable")),
        (Some(marker), Some(baseline)) => markers::tests_ran_fresh(&marker, &baseline),
    };
    match verdict {
        Ok(()) => {
            println!("{marker_name}: fresh");
            Ok(0)
        }
        Err(reason) => {
            eprintln!("{marker_name}: stale: {reason}");
            Ok(1)
        }
    }
}

fn show(ctx: &Context, args: &BaselineShowArgs) -> Result<u8> {
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let story = match &args.story {
        Some(story) => story.clone(),
        None => std::env::var(ucg_ultracode::STORY_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty())
            .or_else(|| ucg_store::read_text(impl_dir.join(markers::CURRENT_STORY_FILE)).ok())
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                Error::new("no story given and none is current (.current-story)")
                    .hint("name it: git ucg baseline show STORY")
            })?,
    };
    ucg_store::validate_story_id(&story)?;
    let sha = |name: String| {
        ucg_store::read_text(impl_dir.join(name))
            .ok()
            .and_then(|t| markers::marker_sha(&t).map(str::to_string))
    };
    let baseline = sha(markers::baseline_file(&story));
    let end = sha(markers::commit_file(&story));
    let commits = match (&baseline, &end) {
        (Some(base), Some(end)) => ctx.repo().ok().and_then(|repo| {
            let base = ucg_git::resolve_commit(repo, base).ok()?;
            let end = ucg_git::resolve_commit(repo, end).ok()?;
            ucg_git::commits_in_range(repo, base, end)
                .ok()
                .map(|c| c.len())
        }),
        _ => None,
    };
    if args.json.on {
        return crate::output::print_json(&serde_json::json!({
            "schema": "git-ucg.baseline/1",
            "story": story,
            "baseline": baseline,
            "end": end,
            "commits": commits,
        }));
    }
    let na = || "n/a".to_string();
    println!("story     {story}");
    println!("baseline  {}", baseline.clone().unwrap_or_else(na));
    println!("end       {}", end.clone().unwrap_or_else(na));
    if let (Some(b), Some(e)) = (&baseline, &end) {
        let count = commits.map_or_else(na, |n| n.to_string());
        println!(
            "range     {}..{} ({count} commits)",
            &b[..b.len().min(7)],
            &e[..e.len().min(7)]
        );
    }
    Ok(0)
}
