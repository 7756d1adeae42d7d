//! `git ucg merge-file BASE OURS THEIRS PATH`: the git merge driver (`merge=ucg`) for the answers
//! file and the RED registry (docs/product.md §5.4). git runs it in the work tree's root with the
//! three versions in temporary files; the merge is written over OURS, and the exit code says
//! whether it merged cleanly. Files it does not merge itself, and sides it cannot read as their
//! kind, go to git's own text merge.

use crate::cli::MergeFileArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::visible::escape_controls;
use std::path::{Path, PathBuf};
use ucg_ultracode::decision_log::{self, DECISION_LOG_FILE};
use ucg_ultracode::merge::{self, Kind, Merged, Overridden, Seen};
use ucg_ultracode::runs;

pub(crate) fn run(ctx: &Context, args: &MergeFileArgs) -> Result<u8> {
    let shown = args.path.display().to_string();
    // git hands a driver regular files. Anything else (a FIFO, a device) would hang git's text
    // merge or feed it endless bytes over ours: a conflict, ours untouched.
    let sides = [
        (&args.base, "the common ancestor"),
        (&args.ours, "ours"),
        (&args.theirs, "theirs"),
    ];
    for (path, side) in sides {
        let why = match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => continue,
            Ok(_) => "it is not a regular file".to_string(),
            Err(e) => e.to_string(),
        };
        eprintln!(
            "git-ucg: {}: cannot read {side} ({}): {why}; not merged, ours left as it was",
            escape_controls(&shown, &[]),
            escape_controls(&path.display().to_string(), &[])
        );
        return Ok(1);
    }
    let kind = args
        .path
        .file_name()
        .and_then(|name| name.to_str())
        .and_then(Kind::of);
    if let Some(kind) = kind {
        match merged(kind, args) {
            Ok(merged) => {
                write_over(&args.ours, merged.bytes.as_bytes())?;
                if !merged.overridden.is_empty() {
                    warn_overridden(ctx, args, &merged.overridden);
                }
                for id in &merged.kept_changed {
                    eprintln!(
                        "git-ucg: warning: {}: {} was removed on one side and changed on the other; \
kept as changed, still pending (answer it with git ucg resolve)",
                        escape_controls(&shown, &[]),
                        escape_controls(id, &[])
                    );
                }
                return Ok(0);
            }
            Err(why) => eprintln!(
                "git-ucg: {}: {}; merging it as text",
                escape_controls(&shown, &[]),
                escape_controls(&why, &[])
            ),
        }
    }
    ucg_git::merge::merge_file_text(&args.ours, &args.base, &args.theirs)
        .map_err(|e| Error::new(format!("cannot run git merge-file for {shown}: {e}")))
}

/// The three sides read (each capped, never a FIFO or a device) and merged; why not, in words.
fn merged(kind: Kind, args: &MergeFileArgs) -> std::result::Result<Merged, String> {
    let read = |path: &Path, side: &str| {
        ucg_store::read_file(path)
            .map_err(|e| format!("cannot read {side} ({}): {e}", path.display()))
    };
    let base = read(&args.base, "the common ancestor")?;
    let ours = read(&args.ours, "ours")?;
    let theirs = read(&args.theirs, "theirs")?;
    merge::merge(kind, &base, &ours, &theirs).map_err(|refused| {
        let what = match kind {
            Kind::Answers => "an answers file",
            Kind::Registry => "a RED registry",
        };
        let which = refused
            .side
            .map_or("the sides together", |side| side.name());
        format!("{which} cannot be merged as {what} ({})", refused.reason)
    })
}

/// Replaces git's temporary file of our side, atomically.
fn write_over(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let lock = ucg_store::lock_dir(dir)?;
    ucg_store::write_atomic(&lock, path, bytes)?;
    Ok(())
}

/// The closes the merge let go, on stderr (git shows it), and in the run's decision log when
/// there is one to write to; a log that cannot be written is said, never a failed merge.
fn warn_overridden(ctx: &Context, args: &MergeFileArgs, overridden: &[Overridden]) {
    let shown = args.path.display().to_string();
    let logged = record_in_log(ctx, &args.path, &shown, overridden);
    let seen = |s: &Seen| {
        format!(
            "{:?} by {} at {} ({})",
            s.answer,
            escape_controls(s.by.as_deref().unwrap_or("(unknown)"), &[]),
            escape_controls(s.at.as_deref().unwrap_or("(unknown)"), &[]),
            s.side.name()
        )
    };
    for o in overridden {
        eprintln!(
            "git-ucg: warning: {}: {} was closed differently on both sides; the later close is kept",
            escape_controls(&shown, &[]),
            escape_controls(&o.id, &[])
        );
        eprintln!("  kept:   {}", seen(&o.kept));
        eprintln!("  let go: {}", seen(&o.lost));
    }
    match logged {
        Ok(log) => eprintln!(
            "  the answer let go is recorded in {}",
            escape_controls(&log.display().to_string(), &[])
        ),
        Err(why) => eprintln!(
            "  the answer let go is not recorded in a decision log: {}",
            escape_controls(&why, &[])
        ),
    }
}

/// Appends the closes let go to the decision log of the run whose answers file this is, found as
/// `resolve` finds it (the heartbeat's epic beside the file, its run folder); the log's path, or
/// why nothing was written.
fn record_in_log(
    ctx: &Context,
    path: &Path,
    shown: &str,
    overridden: &[Overridden],
) -> std::result::Result<PathBuf, String> {
    let root = ctx.project_root().map_err(|e| e.message().to_string())?;
    let impl_dir = root.join(path.parent().unwrap_or(Path::new("")));
    let runs_root = root.join(runs::RUNS_ROOT);
    let dir = decision_log::decision_log_folder::<ucg_ultracode::error::Error>(
        &impl_dir, &runs_root, None, None,
    )
    .map_err(|e| e.to_string())?
    .ok_or_else(|| {
        format!(
            "no run folder under {} belongs to the epic of {}",
            runs_root.display(),
            impl_dir.display()
        )
    })?;
    let log = dir.join(DECISION_LOG_FILE);
    // git writes a path the merge changes at its end, over what is in the work tree by then.
    let relative = log.strip_prefix(&root).unwrap_or(&log);
    let rewritten = ucg_git::merge::merged_head().and_then(|theirs| {
        let repo = ctx.repo().ok()?;
        ucg_git::merge::merge_changes(repo, theirs, relative)
    });
    if rewritten == Some(true) {
        return Err(format!(
            "this merge changes {} too, and git writes its merged version over anything added meanwhile; add it by hand once the merge is done",
            relative.display()
        ));
    }
    decision_log::append_overridden(&dir, Some(&root), shown, overridden).map_err(|e| e.to_string())
}
