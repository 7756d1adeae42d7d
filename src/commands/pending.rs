//! `git ucg pending`: the decisions the run waits on, from exactly the three sources of
//! docs/product.md §4, each with its stable id. Reads, never writes.

use crate::cli::PendingArgs;
use crate::context::Context;
use crate::error::Result;
use crate::render::visible;
use crate::ucg::pending::{self, Pending, PendingInputs, Source};
use std::io::Write;
use std::path::PathBuf;

pub const SCHEMA: &str = "git-ucg.pending/1";

pub fn run(ctx: &Context, args: &PendingArgs) -> Result<u8> {
    let source = &ctx.artifact_source(args.rev.commit.as_deref())?;
    let impl_dir = ctx.impl_artifacts(args.impl_artifacts.dir.as_deref())?;
    let ledger = ctx.deferred_work(
        args.deferred_work.file.as_deref(),
        args.impl_artifacts.dir.as_deref(),
        &impl_dir,
    );
    let project_root = ctx.try_project_root().unwrap_or_else(|| PathBuf::from("."));
    // Under --rev, paths are looked up in the commit's tree: absolute, to be placed there.
    let place = |p: PathBuf| match &args.rev.commit {
        Some(_) => std::path::absolute(&p).unwrap_or(p),
        None => p,
    };
    let (impl_dir, ledger) = (place(impl_dir), place(ledger));
    let found = pending::enumerate(
        &PendingInputs {
            project_root: &project_root,
            impl_dir: &impl_dir,
            ledger: &ledger,
        },
        source,
    );
    let code = u8::from(args.exit_code && !(found.items.is_empty() && found.blockers.is_empty()));
    if args.json.on {
        crate::output::print_json(&document(&found))?;
    } else {
        let mut out = ctx.paged_output();
        out.write_all(visible::escape_controls(&human(&found), &[]).as_bytes())?;
        out.finish()?;
    }
    Ok(code)
}

pub fn document(found: &Pending) -> serde_json::Value {
    serde_json::json!({
        "schema": SCHEMA,
        "items": found.items,
        "blockers": found.blockers,
        "unpromoted": found.unpromoted,
        "unreadable": found.unreadable,
    })
}

/// One line per item: source, id, artifact, decision needed (tab-free, for people and `grep`).
pub fn human(found: &Pending) -> String {
    let mut out = String::new();
    for item in &found.items {
        let source = match item.source {
            Source::Red => "red",
            Source::Escalation => "escalation",
            Source::Decision => "decision",
        };
        let on_record = match (&item.action, &item.answer) {
            (Some(action), Some(answer)) => format!("  [{action} on record: {answer}]"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{source:<10}  {}  {}  {}{on_record}\n",
            item.id, item.artifact, item.decision_needed
        ));
    }
    for file in &found.unpromoted {
        out.push_str(&format!(
            "unpromoted  {file}  (a raw escalation: not answerable until the run promotes it)\n"
        ));
    }
    for file in &found.unreadable {
        out.push_str(&format!(
            "unreadable  {file}  (an escalation sidecar without its four string fields)\n"
        ));
    }
    for blocker in &found.blockers {
        out.push_str(&format!(
            "blocked     {}: {}\n            {}\n",
            blocker.artifact, blocker.reason, blocker.way_out
        ));
    }
    if out.is_empty() {
        out.push_str("nothing pending\n");
    }
    out
}
