//! A range of commits as git prints its diff — `--stat` (the default), `--numstat`,
//! `--name-status`, `--patch` or `--json` — shared by `diff` and `goal diff`: the tree diff and line
//! counts run here, `render::diffstat` lays them out.

use crate::cli::DiffOutputArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::diffstat;
use ucg_git::ObjectId;
use ucg_ultracode::epic;

/// Prints the diff between two commits as `args` asks; with `verify`, only once `base` proved an
/// ancestor of `end`.
pub(crate) fn print_range(
    ctx: &Context,
    repo: &ucg_git::Repository,
    base: ObjectId,
    end: ObjectId,
    verify: Option<Verify>,
    args: &DiffOutputArgs,
) -> Result<u8> {
    let renames = !args.no_renames;
    let mut cache = ucg_git::blob_cache(repo)?;
    // A story's or the epic's range is used only if its base is an ancestor of its end; that walk
    // runs beside the tree diff, and nothing is printed before it says yes.
    let (changes, ancestry) = std::thread::scope(|scope| {
        let checker = verify.as_ref().map(|_| {
            let own = repo.clone();
            scope.spawn(move || epic::check_range(&own, base, end))
        });
        let changes = ucg_git::tree_changes(repo, &mut cache, base, end, renames);
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
    let mut changes = changes?;
    if !args.paths.is_empty() {
        changes = ucg_git::limit_to_paths(changes, &args.paths, repo.object_hash());
    }
    let quote_non_ascii = ucg_git::quotes_non_ascii(repo);
    if args.name_status {
        crate::output::print(diffstat::name_status(&changes, quote_non_ascii))?;
        return Ok(0);
    }
    if args.patch {
        let mut patch = Vec::new();
        ucg_git::patch::write_patch(repo, &mut cache, &changes, quote_non_ascii, &mut patch)?;
        if ctx.color {
            patch = diffstat::colorize_patch(&patch);
        }
        return ctx.page(patch);
    }
    let mut counted = ucg_git::line_count_cache(repo, !args.no_cache);
    let counts = ucg_git::line_counts(repo, &mut cache, &mut counted, &changes)?;
    counted.save();
    if args.numstat {
        crate::output::print(diffstat::numstat(&changes, &counts, quote_non_ascii))?;
        return Ok(0);
    }
    if args.json.on {
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
        let (insertions, deletions) = counts.iter().flatten().fold((0, 0), |(i, d), (a, r)| {
            (i + u64::from(*a), d + u64::from(*r))
        });
        let doc = serde_json::json!({
            "schema": "git-ucg.diff/1",
            "base": base.to_string(),
            "end": end.to_string(),
            "files": files,
            "files_changed": changes.len(),
            "insertions": insertions,
            "deletions": deletions,
        });
        return crate::output::print_json(&doc);
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
                ucg_git::blob_size(repo, change.old_id)?,
                ucg_git::blob_size(repo, change.new_id)?,
            ))),
        })
        .collect::<ucg_git::Result<Vec<_>>>()?;
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
    ctx.page(text)
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

/// Which range was asked for, to word the refusal when its base is not an ancestor of its end.
pub(crate) enum Verify {
    Story { id: String, problems: Vec<String> },
    Epic,
}

impl Verify {
    pub(crate) fn error(&self, problem: String) -> Error {
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
