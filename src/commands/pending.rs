//! `git ucg pending`: the decisions the run waits on, from exactly the three sources of
//! docs/product.md §4, each with its stable id. Reads, never writes.

use crate::cli::PendingArgs;
use crate::context::Context;
use crate::error::Result;
use crate::render::visible;
use std::path::PathBuf;
use ucg_ultracode::deciders;
use ucg_ultracode::pending::{self, Pending, PendingInputs, PendingItem};

pub(crate) fn run(ctx: &Context, args: &PendingArgs) -> Result<u8> {
    let source = &ctx.artifact_source(args.rev.commit.as_deref())?;
    let (impl_dir, ledger) = ctx.run_files(&args.impl_artifacts, &args.deferred_work)?;
    let project_root = ctx.try_project_root().unwrap_or_else(|| PathBuf::from("."));
    let (impl_dir, ledger) = (args.rev.place(impl_dir), args.rev.place(ledger));
    let threshold = ctx.similarity_threshold().unwrap_or_else(|problem| {
        eprintln!(
            "warning: {problem}; using {}",
            ucg_ultracode::similarity::DEFAULT_THRESHOLD
        );
        ucg_ultracode::similarity::DEFAULT_THRESHOLD
    });
    let mut found = pending::enumerate_offering(
        &PendingInputs {
            project_root: &project_root,
            impl_dir: &impl_dir,
            ledger: &ledger,
        },
        source,
        threshold,
    );
    ctx.annotate(&mut found);
    // `--mine` / `--for EMAIL`: only the items that person decides.
    let decider = match (&args.for_email, args.mine) {
        (Some(email), _) => Some(email.clone()),
        (None, true) => Some(
            ctx.my_email(" (git config user.email you@example.com), or name one: --for EMAIL")?,
        ),
        (None, false) => None,
    };
    let mut for_others = 0;
    if let Some(email) = &decider {
        let all = found.items.len();
        found
            .items
            .retain(|item| deciders::decides(&item.deciders, email));
        for_others = all - found.items.len();
    }
    let code = u8::from(args.exit_code && !(found.items.is_empty() && found.blockers.is_empty()));
    if args.json.on {
        crate::output::print_json(&PendingDocument {
            schema: "git-ucg.pending/1",
            items: &found.items,
            blockers: &found.blockers,
            unpromoted: &found.unpromoted,
            unreadable: &found.unreadable,
        })?;
    } else {
        let mut text = human(&found, crate::output::columns(), args.full);
        // "nothing pending" for one person must not read as nothing pending at all.
        if let Some(email) = decider.as_deref().filter(|_| found.items.is_empty()) {
            if for_others > 0 && text == "nothing pending\n" {
                text = format!(
                    "nothing for {email}; {for_others} pending for others: `git ucg pending`\n"
                );
            }
        }
        ctx.page_prose(&visible::escape_controls(&text, &[]))?;
    }
    // The process ends next: thousands of items go with it, not one string at a time.
    std::mem::forget(found);
    Ok(code)
}

/// The `--json` document, serialized straight from the enumeration (no JSON tree in between).
#[derive(serde::Serialize)]
struct PendingDocument<'a> {
    schema: &'static str,
    items: &'a [PendingItem],
    blockers: &'a [pending::Blocker],
    unpromoted: &'a [String],
    unreadable: &'a [String],
}

/// A table for people: a header, then one line per item with its short handle (what `resolve`
/// takes), source, kind, file and the decision needed, in aligned columns fitted to `width`. The
/// decision is never cut: it wraps in its column, or, when the other columns leave it too little
/// room, under its row (`--json` and `full` have every id whole).
pub(crate) fn human(found: &Pending, width: usize, full: bool) -> String {
    let mut out = String::new();
    // Who decides gets a column only where some rule names someone.
    let routed = found.items.iter().any(|item| !item.deciders.is_empty());
    let mut rows: Vec<Vec<String>> = found
        .items
        .iter()
        .map(|item| {
            let (name, file) = crate::render::items::name_and_file(item, full);
            let on_record = match (&item.action, &item.answer) {
                (Some(action), Some(answer)) if answer.is_empty() => {
                    format!("  [{action} on record]")
                }
                (Some(action), Some(answer)) => format!("  [{action} on record: {answer}]"),
                _ => match &item.similar_to {
                    Some(earlier) => format!(
                        "  [reworded? {} was answered {}: {}]",
                        ucg_ultracode::pending::handle_of(&earlier.id),
                        earlier.action,
                        earlier.answer
                    ),
                    None => String::new(),
                },
            };
            let mut row = vec![
                name,
                item.source.label().to_string(),
                item.kind.clone(),
                file.to_string(),
            ];
            if routed {
                row.push(match item.deciders.is_empty() {
                    true => "-".to_string(),
                    false => item.deciders.join(", "),
                });
            }
            row.push(format!("{}{on_record}", item.decision_needed));
            row
        })
        .collect();
    // A "decided by" column the row has no room for goes under it, with the decision.
    let row_width = |row: &Vec<String>| {
        row.iter()
            .rev()
            .skip(1)
            .map(|c| c.chars().count() + 2)
            .sum::<usize>()
    };
    let routed = match routed && rows.iter().map(row_width).max().unwrap_or(0) + 24 > width {
        true => {
            for row in &mut rows {
                if let (Some(decision), Some(deciders)) = (row.pop(), row.pop()) {
                    let decided = match deciders.as_str() {
                        "-" => String::new(),
                        names => format!("  (decided by {names})"),
                    };
                    row.push(format!("{decision}{decided}"));
                }
            }
            false
        }
        false => routed,
    };
    if !rows.is_empty() {
        let mut header = vec!["handle", "source", "kind", "file"];
        if routed {
            header.push("decided by");
        }
        header.push("decision");
        // Every column but the last (the decision) is padded to its widest.
        let fixed = header.len() - 1;
        let widths: Vec<usize> = (0..fixed)
            .map(|c| {
                rows.iter()
                    .map(|r| r[c].chars().count())
                    .chain([header[c].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let column = widths.iter().map(|w| w + 2).sum::<usize>();
        // Too little room beside the row: the decision goes under it, indented.
        let beside = width.saturating_sub(column) >= 24;
        let line = |cells: &[&str]| {
            let mut text = String::new();
            for (c, cell) in cells.iter().take(fixed).enumerate() {
                text.push_str(&format!("{cell:<w$}  ", w = widths[c]));
            }
            let last = cells[fixed];
            if beside {
                let pieces = crate::render::fit::wrap(last, width - column);
                text.push_str(&pieces.join(&format!("\n{:column$}", "")));
            } else {
                let text_end = text.trim_end().len();
                text.truncate(text_end);
                for piece in crate::render::fit::wrap(last, width.saturating_sub(4)) {
                    text.push_str(&format!("\n    {piece}"));
                }
            }
            text.push('\n');
            text
        };
        out.push_str(&line(&header));
        for row in &rows {
            let cells: Vec<&str> = row.iter().map(String::as_str).collect();
            out.push_str(&line(&cells));
        }
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
    // The sources `ucg.gate.sources` leaves out: listed, but the gate lets commits through.
    let mut ungated: Vec<&str> = found
        .items
        .iter()
        .filter(|item| !item.blocks_gate)
        .map(|item| item.source.name())
        .collect();
    ungated.dedup();
    if !ungated.is_empty() {
        out.push_str(&format!(
            "not gated   {}: commits and pushes go ahead (ucg.gate.sources)\n",
            ungated.join(", ")
        ));
    }
    if out.is_empty() {
        out.push_str("nothing pending\n");
    }
    out
}
