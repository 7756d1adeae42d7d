//! `git ucg epic`: the epic's branch and its stories, each with its range, commits and changes.

use crate::cli::EpicArgs;
use crate::context::Context;
use crate::error::Result;
use std::io::Write;
use ucg_ultracode::epic::{self, short, EndSource, Epic, StoryChanges};

pub(crate) fn run(ctx: &Context, args: &EpicArgs) -> Result<u8> {
    let repo = ctx.repo()?;
    let inputs = ctx.epic_inputs(args.impl_artifacts.dir.as_deref(), args.epic.clone())?;
    let source = ctx.artifact_source(args.rev.commit.as_deref())?;
    let tip = (args.rev.commit.as_deref()).and_then(|rev| ucg_git::repo::commit_of(repo, rev).ok());
    let mut epic = epic::load(repo, &inputs, &source, tip, epic::Detail::Full)?;
    let mut counted = ucg_git::line_count_cache(repo, !args.no_cache && !args.fast);
    let changes: Vec<Option<StoryChanges>> = epic
        .stories
        .iter_mut()
        .map(|story| epic::story_changes(repo, story, args.fast, &mut counted))
        .collect();
    counted.save();
    if args.json.on {
        let doc = document(&epic, &changes);
        return crate::output::print_json(&doc);
    }
    // Story keys, statuses and commit subjects come from files and commits anyone can write:
    // their control characters are shown, never sent to the terminal.
    let mut text = Vec::new();
    write_human(&mut text, &epic, &changes)?;
    let text = String::from_utf8_lossy(&text);
    ctx.page_prose(&crate::render::visible::escape_controls(&text, &[]))
}

fn document(epic: &Epic, changes: &[Option<StoryChanges>]) -> serde_json::Value {
    let stories: Vec<_> = epic
        .stories
        .iter()
        .zip(changes)
        .map(|(story, changes)| {
            let counts = changes.as_ref().and_then(|c| c.counts);
            serde_json::json!({
                "id": story.id,
                "status": story.status,
                "verdict": story.verdict,
                "baseline": story.baseline.map(|id| id.to_string()),
                "end": story.end.map(|id| id.to_string()),
                "end_source": story.end_source,
                "commits": changes.as_ref().map(|c| c.commits.clone()).unwrap_or_default(),
                "files_changed": counts.map(|c| c.0),
                "insertions": counts.map(|c| c.1),
                "deletions": counts.map(|c| c.2),
                "problems": story.problems,
            })
        })
        .collect();
    serde_json::json!({
        "schema": "git-ucg.epic/1",
        "epic": epic.id,
        "branch": {
            "name": epic.branch,
            "exists": epic.branch_exists,
            "checked_out": epic.checked_out,
            "base": epic.base_branch,
            "ahead": epic.ahead,
        },
        "tip": epic.tip.map(|id| id.to_string()),
        "stories": stories,
        "problems": epic.problems,
    })
}

fn write_human(out: &mut impl Write, epic: &Epic, changes: &[Option<StoryChanges>]) -> Result<()> {
    let exists = if epic.branch_exists {
        "exists"
    } else {
        "missing"
    };
    let mut state = vec![exists.to_string()];
    if epic.checked_out {
        state.push("checked out".into());
    }
    if let (Some(base), Some(ahead)) = (&epic.base_branch, epic.ahead) {
        state.push(format!(
            "{ahead} commit{} ahead of {base}",
            if ahead == 1 { "" } else { "s" }
        ));
    }
    writeln!(
        out,
        "Epic {}  branch {} ({})",
        epic.id,
        epic.branch,
        state.join(", ")
    )?;
    writeln!(out)?;
    let mut table = crate::render::table(&[
        "story", "status", "verdict", "baseline", "end", "commits", "files", "+", "-",
    ]);
    for (story, changes) in epic.stories.iter().zip(changes) {
        let counts = changes.as_ref().and_then(|c| c.counts);
        let end = match (story.end, story.end_source) {
            (Some(id), EndSource::CommitMarker) => short(id),
            (Some(id), EndSource::NextBaseline) => format!("{} (next)", short(id)),
            (Some(id), EndSource::Tip) => format!("{} (tip)", short(id)),
            (None, _) => "n/a".into(),
        };
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "n/a".into());
        let number = |n: Option<String>| n.unwrap_or_else(|| "n/a".into());
        table.add_row([
            story.id.clone(),
            text(&story.status),
            text(&story.verdict),
            story.baseline.map_or("n/a".into(), short),
            end,
            number(changes.as_ref().map(|c| c.commits.len().to_string())),
            number(counts.map(|c| c.0.to_string())),
            number(counts.map(|c| c.1.to_string())),
            number(counts.map(|c| c.2.to_string())),
        ]);
    }
    write!(out, "{}", crate::render::table_lines(&table))?;
    for (story, changes) in epic.stories.iter().zip(changes) {
        let Some(changes) = changes else { continue };
        if changes.commits.is_empty() {
            continue;
        }
        writeln!(out)?;
        for (i, commit) in changes.commits.iter().enumerate() {
            let label = if i == 0 { story.id.as_str() } else { "" };
            writeln!(out, "{label:<8} {} {}", commit.short, commit.subject)?;
        }
    }
    let problems: Vec<(String, &String)> = epic
        .problems
        .iter()
        .map(|p| ("epic".to_string(), p))
        .chain(
            epic.stories
                .iter()
                .flat_map(|s| s.problems.iter().map(move |p| (s.id.clone(), p))),
        )
        .collect();
    if !problems.is_empty() {
        writeln!(out)?;
        writeln!(out, "Problems:")?;
        for (whose, problem) in problems {
            writeln!(out, "  {whose}: {problem}")?;
        }
    }
    Ok(())
}
