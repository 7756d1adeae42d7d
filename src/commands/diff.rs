//! `git ucg diff`: the accumulated diff of an epic, a story's diff, or any range, computed with
//! gitoxide and printed as git prints it.

use crate::cli::{DiffArgs, DiffOutputArgs};
use crate::context::Context;
use crate::epic::{self, EpicInputs};
use crate::error::{Error, Result};
use crate::git;
use crate::render::diffstat;
use gix::ObjectId;
use std::io::Write;

pub fn run(ctx: &Context, args: &DiffArgs) -> Result<u8> {
    // A clone to tune: this command reads many blobs, some twice (see `tune_for_diffs`).
    let mut repo = ctx.repo()?.clone();
    git::tune_for_diffs(&mut repo);
    let repo = &repo;
    let (base, end, verify) = resolve_range(ctx, repo, args)?;
    print_range(ctx, repo, base, end, verify, &args.output)
}

/// Prints the diff between two commits as `args` asks; with `verify`, only once `base` proved an
/// ancestor of `end`.
pub(crate) fn print_range(
    ctx: &Context,
    repo: &gix::Repository,
    base: ObjectId,
    end: ObjectId,
    verify: Option<Verify>,
    args: &DiffOutputArgs,
) -> Result<u8> {
    let renames = !args.no_renames;
    let mut cache = git::blob_cache(repo).map_err(Error::new)?;
    // A story's or the epic's range is used only if its base is an ancestor of its end; that walk
    // runs beside the tree diff, and nothing is printed before it says yes.
    let (changes, ancestry) = std::thread::scope(|scope| {
        let checker = verify.as_ref().map(|_| {
            let own = repo.clone();
            scope.spawn(move || epic::check_range(&own, base, end))
        });
        let changes = git::tree_changes(repo, &mut cache, base, end, renames);
        let ancestry = match checker.map(|c| c.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err("the ancestry check failed".to_string()),
            None => Ok(()),
        };
        (changes, ancestry)
    });
    if let (Err(problem), Some(verify)) = (ancestry, &verify) {
        return Err(verify.error(problem));
    }
    let mut changes = changes.map_err(Error::new)?;
    if !args.paths.is_empty() {
        changes = limit_to_paths(changes, &args.paths, repo.object_hash());
    }
    // git's core.quotePath (default true) quotes non-ASCII paths in its output.
    let quote_non_ascii = repo
        .config_snapshot()
        .boolean("core.quotePath")
        .unwrap_or(true);
    if args.name_status {
        return print(ctx, diffstat::name_status(&changes, quote_non_ascii), false);
    }
    if args.patch {
        let mut patch = Vec::new();
        git::patch::write_patch(repo, &mut cache, &changes, quote_non_ascii, &mut patch)
            .map_err(Error::new)?;
        if ctx.color {
            patch = diffstat::colorize_patch(&patch);
        }
        let mut out = ctx.paged_output();
        out.write_all(&patch)?;
        out.finish()?;
        return Ok(0);
    }
    let mut counted = git::line_count_cache(repo, !args.no_cache);
    let counts = git::line_counts(repo, &mut cache, &mut counted, &changes).map_err(Error::new)?;
    counted.save();
    if args.numstat {
        return print(
            ctx,
            diffstat::numstat(&changes, &counts, quote_non_ascii),
            false,
        );
    }
    if args.json {
        let files: Vec<_> = changes
            .iter()
            .zip(&counts)
            .map(|(change, count)| {
                serde_json::json!({
                    "status": change.status.code(),
                    "path": change.path,
                    "old_path": (change.old_path != change.path).then_some(&change.old_path),
                    "insertions": count.map(|c| c.0),
                    "deletions": count.map(|c| c.1),
                    "binary": count.is_none(),
                })
            })
            .collect();
        let (insertions, deletions) = totals(&counts);
        let doc = serde_json::json!({
            "schema": "git-ucg.diff/1",
            "base": base.to_string(),
            "end": end.to_string(),
            "files": files,
            "files_changed": changes.len(),
            "insertions": insertions,
            "deletions": deletions,
        });
        return super::print_json(&doc);
    }
    if changes.is_empty() {
        return Ok(0);
    }
    let binary_sizes = changes
        .iter()
        .zip(&counts)
        .map(|(change, count)| match count {
            Some(_) => Ok(None),
            None => Ok(Some((
                git::blob_size(repo, change.old_id)?,
                git::blob_size(repo, change.new_id)?,
            ))),
        })
        .collect::<std::result::Result<Vec<_>, String>>()
        .map_err(Error::new)?;
    let mut text = diffstat::stat(
        &changes,
        &counts,
        &binary_sizes,
        terminal_width(),
        quote_non_ascii,
    );
    if ctx.color {
        text = diffstat::colorize_stat(&text);
    }
    print(ctx, text, true)
}

fn totals(counts: &[git::LineCounts]) -> (u64, u64) {
    counts.iter().flatten().fold((0, 0), |(i, d), (a, r)| {
        (i + u64::from(*a), d + u64::from(*r))
    })
}

/// Keeps the changes under `paths`. As in git, whose rename detection sees only the paths it was
/// given, a rename with one side outside them is a deletion or an addition of the side inside.
fn limit_to_paths(
    changes: Vec<git::FileChange>,
    paths: &[String],
    hash: gix::hash::Kind,
) -> Vec<git::FileChange> {
    let inside = |path: &str| paths.iter().any(|p| under(path, p));
    let null = ObjectId::null(hash);
    let mut kept = Vec::new();
    for change in changes {
        let (old_in, new_in) = (inside(&change.old_path), inside(&change.path));
        match change.status {
            git::Status::Renamed(_) if old_in != new_in => {
                if old_in {
                    kept.push(git::FileChange {
                        status: git::Status::Deleted,
                        path: change.old_path.clone(),
                        new_id: null,
                        new_mode: 0,
                        ..change
                    });
                } else {
                    kept.push(git::FileChange {
                        status: git::Status::Added,
                        old_path: change.path.clone(),
                        old_id: null,
                        old_mode: 0,
                        ..change
                    });
                }
            }
            _ if old_in || new_in => kept.push(change),
            _ => {}
        }
    }
    kept.sort_by(|a, b| a.path.cmp(&b.path));
    kept
}

fn under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('/');
    prefix.is_empty() || path == prefix || path.starts_with(&format!("{prefix}/"))
}

/// The columns git lays a diffstat out for: `COLUMNS` on a terminal, else 80.
fn terminal_width() -> usize {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()) {
            return columns;
        }
    }
    80
}

fn print(ctx: &Context, text: String, paged: bool) -> Result<u8> {
    if paged {
        let mut out = ctx.paged_output();
        out.write_all(text.as_bytes())?;
        out.finish()?;
    } else {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(text.as_bytes())?;
        stdout.flush()?;
    }
    Ok(0)
}

/// Which range was asked for, to word the refusal when its base is not an ancestor of its end.
pub(crate) enum Verify {
    Story { id: String, problems: Vec<String> },
    Epic,
}

impl Verify {
    fn error(&self, problem: String) -> Error {
        let error = match self {
            Verify::Story { id, problems } => {
                let mut all = problems.clone();
                if !all.contains(&problem) {
                    all.push(problem);
                }
                Error::new(format!(
                    "story {id} has no usable range: {}",
                    all.join("; ")
                ))
            }
            Verify::Epic => Error::new(format!("the epic has no usable range: {problem}")),
        };
        error.hint("`git ucg epic` shows each story's markers and problems")
    }
}

/// The two commits to compare, and how to check them when they come from markers.
fn resolve_range(
    ctx: &Context,
    repo: &gix::Repository,
    args: &DiffArgs,
) -> Result<(ObjectId, ObjectId, Option<Verify>)> {
    if let Some(range) = &args.range {
        let (a, b) = range
            .split_once("..")
            .ok_or_else(|| Error::new(format!("--range {range:?} is not A..B")))?;
        let resolve = |spec: &str| -> Result<ObjectId> {
            let spec = if spec.is_empty() { "HEAD" } else { spec };
            let id = repo
                .rev_parse_single(spec)
                .map_err(|e| Error::new(format!("cannot resolve {spec:?}: {e}")))?;
            let commit = id
                .object()
                .and_then(|o| o.peel_to_commit())
                .map_err(|e| Error::new(format!("{spec:?} is not a commit: {e}")))?;
            Ok(commit.id)
        };
        return Ok((resolve(a)?, resolve(b)?, None));
    }
    let inputs = EpicInputs::locate(ctx, args.impl_artifacts.as_deref(), args.epic_id.clone())?;
    let source = crate::store::ArtifactSource::WorkTree;
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
