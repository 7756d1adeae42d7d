//! `git ucg notify --exec CMD [--watch]`: runs CMD once per change of what the run waits on (new
//! items, items closed), with the change as JSON on its standard input and the new items'
//! deciders in its environment (`ucg_ultracode::notify`). One check, or `--watch` for every change.

use crate::cli::NotifyArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::watch::{DirWatcher, Woken};
use std::path::PathBuf;
use std::time::Duration;
use ucg_ultracode::notify::{self, Announced, Announcer};
use ucg_ultracode::pending::{self, PendingItem};

pub(crate) fn run(ctx: &Context, args: &NotifyArgs) -> Result<u8> {
    if !args.watch {
        let items = pending_now(ctx, args)?;
        let run = crate::output::notify_runner(&args.exec);
        let announced = notify::announce(ctx.repo()?.git_dir(), &items, &run)?;
        return Ok(match announced {
            Announced::Failed(_) => 1,
            Announced::Nothing | Announced::Done => 0,
        });
    }
    ctrlc::set_handler(|| std::process::exit(0))
        .map_err(|e| Error::new(format!("cannot handle Ctrl-C: {e}")))?;
    watch(ctx, args)
}

/// The items pending now in this work tree (or in the tree of `--rev`), with their deciders.
fn pending_now(ctx: &Context, args: &NotifyArgs) -> Result<Vec<PendingItem>> {
    let impl_flag = args.impl_artifacts.dir.as_deref();
    let (located, source) = ctx.gate_source(args.rev.commit.as_deref(), impl_flag, "notify")?;
    let mut found = pending::enumerate(&located.pending(), &source);
    ctx.annotate(&mut found);
    Ok(found.items)
}

/// Checks on every change under the artifact directory and the ledger's directory (debounced by
/// 200 ms, and every few seconds besides, for a directory that came back). A failed announcement
/// is tried again only once the pending set has changed again.
fn watch(ctx: &Context, args: &NotifyArgs) -> Result<u8> {
    let mut watcher = DirWatcher::new()?;
    let mut announcer = Announcer::default();
    let run = crate::output::notify_runner(&args.exec);
    loop {
        // A commit's tree has no files to watch: `--rev` is read again on every wake-up.
        if args.rev.commit.is_none() {
            let located = ctx.gate_inputs(args.impl_artifacts.dir.as_deref())?;
            let mut targets = vec![located.impl_dir.clone()];
            targets.extend(located.ledger.parent().map(PathBuf::from));
            watcher.watch_only(targets);
        }
        announcer.announce(ctx.repo()?.git_dir(), &pending_now(ctx, args)?, &run)?;
        if let Woken::Closed = watcher.wait(Duration::from_secs(5)) {
            return Ok(0);
        }
    }
}
