//! `git ucg merge-file BASE OURS THEIRS PATH`: the git merge driver (`merge=ucg`) for the answers
//! file and the RED registry (docs/product.md §5.4). git runs it in the work tree's root with the
//! three versions in temporary files; the merge is written over OURS, and the exit code says
//! whether it merged cleanly. Files it does not merge itself, and sides it cannot read as their
//! kind, go to git's own text merge.

use crate::cli::MergeFileArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::render::visible::escape_controls;
use std::path::Path;
use ucg_ultracode::merge::{self, Kind, Merged, Overridden, Seen};

pub(crate) fn run(_ctx: &Context, args: &MergeFileArgs) -> Result<u8> {
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
                // Replaces git's temporary file of our side, atomically.
                let lock = ucg_store::lock_dir(ucg_store::dir_of(&args.ours))?;
                ucg_store::write_atomic(&lock, &args.ours, merged.bytes.as_bytes())?;
                if !merged.overridden.is_empty() {
                    warn_contested(args, &merged.overridden);
                }
                for id in &merged.kept_changed {
                    eprintln!(
                        "git-ucg: warning: a RED one side removed and the other changed is kept;"
                    );
                    eprintln!("  item    {}", escape_controls(id, &[]));
                    eprintln!("  file    {}", escape_controls(&shown, &[]));
                    eprintln!("  It is still pending: answer it with git ucg resolve.");
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

/// The closes the merge let go, on stderr (git shows it), and in the run's decision log when
/// there is one to write to; a log that cannot be written is said, never a failed merge.
fn warn_contested(args: &MergeFileArgs, contested: &[Overridden]) {
    let path = args.path.display().to_string();
    let shown = escape_controls(&path, &[]);
    let seen = |s: &Seen| {
        format!(
            "{:?} by {} at {}",
            s.answer,
            escape_controls(s.by.as_deref().unwrap_or("(unknown)"), &[]),
            escape_controls(s.at.as_deref().unwrap_or("(unknown)"), &[]),
        )
    };
    for o in contested {
        let (ours, theirs) = match o.kept.side {
            merge::Side::Ours => (&o.kept, &o.lost),
            _ => (&o.lost, &o.kept),
        };
        eprintln!("git-ucg: warning: closed differently on both sides; both answers are kept");
        eprintln!("  item    {}", escape_controls(&o.id, &[]));
        eprintln!("  file    {shown}");
        eprintln!("  ours    {}", seen(ours));
        eprintln!("  theirs  {}", seen(theirs));
        eprintln!("  It is pending again, a contested decision: settle it with git ucg resolve");
        eprintln!("  (either answer, or a third).");
    }
}
