//! `git ucg diff`: the accumulated diff of an epic, a story's diff, or any range, computed with
//! gitoxide and printed as git prints it.

use crate::cli::DiffArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::range_diff::{print_range, Verify};
use ucg_git::ObjectId;
use ucg_ultracode::epic;

pub(crate) fn run(ctx: &Context, args: &DiffArgs) -> Result<u8> {
    // A clone to tune: this command reads many blobs, some twice (see `tune_for_diffs`).
    let mut repo = ctx.repo()?.clone();
    ucg_git::tune_for_diffs(&mut repo);
    let repo = &repo;
    let (base, end, verify) = resolve_range(ctx, repo, args)?;
    print_range(ctx, repo, base, end, verify, &args.output)
}

/// The two commits to compare, and how to check them when they come from markers.
fn resolve_range(
    ctx: &Context,
    repo: &ucg_git::Repository,
    args: &DiffArgs,
) -> Result<(ObjectId, ObjectId, Option<Verify>)> {
    if let Some(range) = &args.range {
        let (a, b) = range
            .split_once("..")
            .ok_or_else(|| Error::new(format!("--range {range:?} is not A..B")))?;
        let resolve = |spec: &str| -> Result<ObjectId> {
            let spec = if spec.is_empty() { "HEAD" } else { spec };
            ucg_git::resolve_to_commit(repo, spec).map_err(Error::from)
        };
        return Ok((resolve(a)?, resolve(b)?, None));
    }
    let inputs = ctx.epic_inputs(args.impl_artifacts.dir.as_deref(), args.epic_id())?;
    let source = ucg_git::ArtifactSource::WorkTree;
    let detail = epic::Detail::RangeOf(args.story.clone());
    let epic = epic::load(repo, &inputs, &source, None, detail)?;
    if let Some(story_id) = &args.story {
        let story = epic.story(story_id).ok_or_else(|| {
            Error::new(format!("epic {} has no story {story_id:?}", epic.id))
                .hint("`git ucg epic` lists the stories")
        })?;
        let verify = Verify::Story {
            id: story_id.clone(),
            problems: story.problems.clone(),
        };
        return match (story.baseline, story.end, story.usable) {
            (Some(base), Some(end), true) => Ok((base, end, Some(verify))),
            _ => {
                let first = story.problems.first().cloned();
                Err(verify.error(first.unwrap_or_else(|| "no baseline".to_string())))
            }
        };
    }
    let (base, tip) = epic.accumulated().map_err(Error::new)?;
    Ok((base, tip, Some(Verify::Epic)))
}
