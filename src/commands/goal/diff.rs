//! `goal diff`: the accumulated diff of the whole pursuit, from the base recorded when it entered
//! pursuing (or `--base`) to HEAD, printed as `git ucg diff` prints a range.

use crate::cli::GoalDiffArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::range_diff::print_range;
use ucg_ultragoal::base;
use ucg_ultragoal::session::Session;

pub(crate) fn run(ctx: &Context, session: &Session, args: &GoalDiffArgs) -> Result<u8> {
    let repo = ctx.repo()?;
    let base = match &args.base {
        Some(rev) => ucg_git::repo::commit_of(repo, rev)
            .map_err(|e| Error::new(format!("--base {e}")))?,
        None => base::recorded(repo, &session.sid).ok_or_else(|| {
            Error::new(format!(
                "no recorded base for session {}: the pursuit never entered pursuing through git-ucg here",
                session.sid
            ))
            .hint("give the pursuit's first commit with --base REV")
        })?,
    };
    let end = repo
        .head_id()
        .map_err(|e| Error::new(format!("HEAD: {e}")))?
        .detach();
    print_range(ctx, repo, base, end, None, &args.output)
}
