//! `sdlc reconcile`: brings a run's work-item snapshots to their most trusted source, after asking
//! (a forward sync of a successful adapter receipt excepted); the ledgers are only appended to.

use crate::cli::SdlcWriteArgs;
use crate::context::Context;
use crate::error::{Error, Result};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;
use ucg_sdlc::layout::{select, Layout};
use ucg_sdlc::loaded::{json_bytes, load, refuse_completed, Loaded};
use ucg_sdlc::workitem::{
    classes, meta_changes, now, paths, plan, rel, sources, FieldChange, MarkdownPlan, Paths, Source,
};
use ucg_sdlc::{ledger, markdown};

/// What a reconcile of the run `id` would change: the work item's sources, the plan for each
/// snapshot inside docs/superpowers (one outside is left alone, with a warning when `warn`), and
/// the changes to meta.json's `work_item`.
fn planned(layout: &Layout, id: &str, loaded: &Loaded, warn: bool) -> Planned {
    let paths = paths(layout, loaded);
    let sources = sources(loaded, &paths);
    let mut plans = plan(&sources);
    plans.retain(|p| {
        let inside = inside_docs(layout, &p.path);
        if !inside && warn {
            eprintln!(
                "warning: {id}: {} is outside docs/superpowers: left alone",
                p.path.display()
            );
        }
        inside
    });
    let meta_changes = meta_changes(loaded, &sources);
    (paths, sources, plans, meta_changes)
}

/// A reconcile's plan: the work item's paths and sources, each snapshot's plan, the changes to
/// meta.json's `work_item`.
type Planned = (
    Paths,
    Vec<Source>,
    Vec<MarkdownPlan>,
    Vec<(String, Value, String)>,
);

/// Whether `path` is inside the runs or the work items, where reconcile writes (A.7), `..`
/// resolved first.
fn inside_docs(layout: &Layout, path: &Path) -> bool {
    let path = ucg_store::lexical_normal(path);
    path.starts_with(ucg_store::lexical_normal(&layout.runs))
        || path.starts_with(ucg_store::lexical_normal(&layout.work_items))
}

/// Whether the run's work item disagrees with its ledgers (a reconcile would change something).
pub(crate) fn needed(layout: &Layout, id: &str, loaded: &Loaded) -> bool {
    let (_, _, plans, meta_changes) = planned(layout, id, loaded, false);
    !plans.is_empty() || !meta_changes.is_empty()
}

pub(crate) fn run(ctx: &Context, args: &SdlcWriteArgs) -> Result<u8> {
    let layout = super::layout(ctx, &args.layout)?;
    let (id, dir) = select(&layout, &args.run)?;
    let run_lock = ucg_store::lock_dir(&dir).map_err(|e| Error::new(e.to_string()))?;
    // The canonical work items are shared between runs: locked before they are read, so a
    // reconcile of another run cannot change one between this read and this write. (Always after
    // a run's lock: two reconciles never wait on each other in opposite orders.)
    let canonical_lock = match layout.work_items.is_dir() {
        true => {
            Some(ucg_store::lock_dir(&layout.work_items).map_err(|e| Error::new(e.to_string()))?)
        }
        false => None,
    };
    let loaded = load(&id, &dir, false);
    refuse_completed(&loaded)?;
    let (paths, sources, plans, meta_changes) = planned(&layout, &id, &loaded, true);
    let outside = plans.len() < plan(&sources).len();
    let mut out = std::io::stdout().lock();
    if plans.is_empty() && meta_changes.is_empty() {
        let said = match outside {
            // What disagrees lies outside docs/superpowers (warned above): not agreement.
            true => "nothing reconciled: what disagrees is outside docs/superpowers (above)",
            false => "the work item agrees with its ledgers; nothing to reconcile",
        };
        writeln!(out, "{id}: {said}")?;
        return Ok(0);
    }
    let conflicts = plans.iter().any(|p| !p.changes.is_empty()) || !meta_changes.is_empty();
    for (key, from, to) in &meta_changes {
        writeln!(out, "  meta.json: work_item.{key}: {from} -> {to:?}")?;
    }
    for plan in &plans {
        for change in &plan.changes {
            writeln!(
                out,
                "  {}: {}: {} -> {} (from {})",
                rel(&layout, &plan.path),
                change.field,
                change.from.as_deref().unwrap_or("(absent)"),
                change.to,
                rel(&layout, &change.source)
            )?;
        }
        for row in &plan.forward_rows {
            writeln!(out, "  {}: forward sync: {row}", rel(&layout, &plan.path))?;
        }
    }
    out.flush()?;
    // A conflict repair asks; forward sync of a successful receipt does not.
    let repair = conflicts
        && (args.yes
            || super::confirmed(
                "Reconcile the work item toward its most trusted source? (yes/no)",
            )?);
    let stamp = now();
    let mut recorded = Vec::new();
    for plan in &plans {
        let changes: &[FieldChange] = if repair { &plan.changes } else { &[] };
        if changes.is_empty() && plan.forward_rows.is_empty() {
            continue;
        }
        let mut text = plan.text.clone();
        for change in changes {
            text = markdown::set_field(&text, &change.field, &change.to);
        }
        for row in &plan.forward_rows {
            text = markdown::append_history(&text, row);
        }
        if !changes.is_empty() {
            let fields: Vec<&str> = changes.iter().map(|c| c.field.as_str()).collect();
            let from = rel(&layout, &changes[0].source);
            text = markdown::append_history(
                &text,
                &format!(
                    "{stamp} - git-ucg: reconciled {} from {from}",
                    fields.join(", ")
                ),
            );
        }
        let lock = match (
            &canonical_lock,
            ucg_store::lexical_normal(&plan.path)
                .starts_with(ucg_store::lexical_normal(&layout.work_items)),
        ) {
            (Some(lock), true) => lock,
            _ => &run_lock,
        };
        ucg_store::write_atomic(lock, &plan.path, text.as_bytes())
            .map_err(|e| Error::new(e.to_string()))?;
        recorded.push((plan, changes));
    }
    let meta_repaired = repair && !meta_changes.is_empty();
    if meta_repaired {
        if let Some(mut meta) = loaded.meta.clone() {
            if let Some(Value::Object(work_item)) = meta.get_mut("work_item") {
                for (key, _, to) in &meta_changes {
                    work_item.insert(key.clone(), to.as_str().into());
                }
            }
            ucg_store::write_atomic(
                &run_lock,
                &dir.join(ucg_sdlc::run::META_FILE),
                &json_bytes(&meta),
            )
            .map_err(|e| Error::new(e.to_string()))?;
        }
    }
    if recorded.is_empty() && !meta_repaired {
        eprintln!("{id}: not reconciled");
        return Ok(1);
    }
    let from_classes = classes(
        recorded
            .iter()
            .flat_map(|(_, c)| c.iter())
            .map(|c| c.source_class),
    );
    let to_classes = classes(recorded.iter().map(|(p, _)| p.class));
    let forward_only = recorded.iter().all(|(_, c)| c.is_empty());
    let direction = match forward_only {
        true => format!("receipt->{to_classes}"),
        false => format!("{from_classes}->{to_classes}"),
    };
    let changed: Vec<Value> = recorded
        .iter()
        .flat_map(|(p, c)| {
            c.iter().map(|c| {
                json!({"file": rel(&layout, &p.path), "field": c.field, "from": c.from, "to": c.to,
                    "source": rel(&layout, &c.source)})
            })
        })
        .collect();
    let mut changed_fields: Vec<String> = Vec::new();
    for change in recorded.iter().flat_map(|(_, c)| c.iter()) {
        if !changed_fields.contains(&change.field) {
            changed_fields.push(change.field.clone());
        }
    }
    let artifacts: Vec<String> = recorded
        .iter()
        .map(|(p, _)| rel(&layout, &p.path))
        .collect();
    let artifact_refs: Vec<&str> = artifacts.iter().map(String::as_str).collect();
    let line = ledger::event_line(
        loaded.run_id(),
        "work_item.reconciled",
        &format!("work item reconciled ({direction})"),
        &artifact_refs,
        json!({"direction": direction, "changed_fields": changed_fields, "changes": changed,
            "meta_work_item": meta_changes.iter().filter(|_| repair)
                .map(|(k, from, to)| (k.clone(), json!({"from": from, "to": to}))).collect::<Map<String, Value>>(),
            "forward_synced": recorded.iter().map(|(p, _)| p.forward_rows.len()).sum::<usize>()}),
    );
    let mut failed = false;
    for ledger_path in [
        dir.join(ucg_sdlc::events::EVENTS_FILE),
        paths.canonical_ledger.clone(),
        paths.run_ledger.clone(),
    ] {
        if !ledger_path.is_file() {
            continue;
        }
        if !inside_docs(&layout, &ledger_path) {
            eprintln!(
                "warning: {id}: {} is outside docs/superpowers: not appended to",
                ledger_path.display()
            );
            continue;
        }
        if let Err(e) = ucg_store::append_line_to_existing(&ledger_path, &line) {
            failed = true;
            eprintln!(
                "warning: {id}: cannot append work_item.reconciled to {}: {e}",
                ledger_path.display()
            );
        }
    }
    writeln!(
        out,
        "{id}: reconciled {} file(s); work_item.reconciled appended ({direction})",
        recorded.len()
    )?;
    if conflicts && !repair {
        eprintln!("{id}: the conflicts were not reconciled (only forward sync was applied)");
        return Ok(1);
    }
    Ok(u8::from(failed))
}
