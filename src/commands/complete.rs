//! `git ucg __complete pending|stories|runs`: the values the shell completions offer, one per
//! line. Called at every <TAB>, so it never fails aloud: whatever cannot be read offers nothing.

use crate::cli::{CompleteArgs, CompleteWhat};
use crate::context::Context;
use std::io::Write;
use ucg_git::ArtifactSource;
use ucg_ultracode::pending::{self, PendingInputs};
use ucg_ultracode::{runs, sprint};

pub(crate) fn run(ctx: &Context, args: &CompleteArgs) -> u8 {
    let candidates = match args.what {
        CompleteWhat::Pending => pending_handles(ctx),
        CompleteWhat::Stories => stories(ctx),
        CompleteWhat::Runs => run_names(ctx),
        CompleteWhat::SdlcRuns => sdlc_runs(ctx),
    };
    let mut out = std::io::stdout().lock();
    for candidate in candidates {
        if writeln!(out, "{candidate}").is_err() {
            break;
        }
    }
    0
}

fn pending_handles(ctx: &Context) -> Vec<String> {
    let (Ok(root), Ok(impl_dir)) = (ctx.project_root(), ctx.impl_artifacts(None)) else {
        return Vec::new();
    };
    let ledger = ctx.deferred_work(None, None, &impl_dir);
    let found = pending::enumerate(
        &PendingInputs {
            project_root: &root,
            impl_dir: &impl_dir,
            ledger: &ledger,
        },
        &ArtifactSource::WorkTree,
    );
    found
        .items
        .iter()
        .map(|item| item.handle().to_string())
        .collect()
}

/// The stories sprint-status.yaml lists, then those with markers, in that order, once each.
fn stories(ctx: &Context) -> Vec<String> {
    let Ok(impl_dir) = ctx.impl_artifacts(None) else {
        return Vec::new();
    };
    let mut found: Vec<String> = ucg_store::read_text(impl_dir.join(sprint::SPRINT_FILE))
        .map(|text| {
            sprint::development_status(&text)
                .keys()
                .filter(|key| sprint::epic_of(key).is_some() && !key.starts_with("epic-"))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let mut marked: Vec<String> = ArtifactSource::WorkTree
        .list(&impl_dir)
        .iter()
        .filter_map(|name| ucg_ultracode::markers::baseline_story(name).map(str::to_string))
        .filter(|story| ucg_store::validate_story_id(story).is_ok())
        .collect();
    marked.sort();
    for story in marked {
        if !found.contains(&story) {
            found.push(story);
        }
    }
    found
}

fn run_names(ctx: &Context) -> Vec<String> {
    let Ok(root) = ctx.project_root() else {
        return Vec::new();
    };
    let mut names = ArtifactSource::WorkTree.list(&root.join(runs::RUNS_ROOT));
    names.sort();
    names
}

/// The agentic-sdlc runs, newest first as `sdlc list` shows them, and `latest`.
fn sdlc_runs(ctx: &Context) -> Vec<String> {
    let Ok(layout) = ucg_sdlc::layout::locate(None, ctx.project_root()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = ucg_sdlc::layout::run_dirs(&layout.runs, false)
        .map(|runs| runs.into_iter().map(|(id, _)| id).collect())
        .unwrap_or_default();
    names.push("latest".into());
    names
}
