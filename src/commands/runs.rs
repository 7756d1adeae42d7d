//! `git ucg runs`: the runs index — every run folder under the runs root, live or terminal, the
//! epic its name gives, and when its decision log last changed.

use crate::cli::RunsArgs;
use crate::context::Context;
use crate::error::Result;
use std::io::Write;
use std::path::{Path, PathBuf};
use ucg_ultracode::{decision_log, runs};

/// One run folder.
#[derive(Debug, serde::Serialize)]
struct Run {
    name: String,
    state: &'static str,
    epic: Option<String>,
    /// The decision log's modification time, UTC ISO-8601.
    last_activity: Option<String>,
    path: String,
}

pub(crate) fn run(ctx: &Context, args: &RunsArgs) -> Result<u8> {
    let root = match &args.runs_root.dir {
        Some(dir) => dir.clone(),
        None => ctx.project_root()?.join(runs::RUNS_ROOT),
    };
    let found = list(&root);
    if args.json.on {
        let doc = serde_json::json!({
            "schema": "git-ucg.runs/1",
            "runs_root": root.to_string_lossy(),
            "runs": found,
        });
        return crate::output::print_json(&doc);
    }
    let mut out = ctx.paged_output();
    if found.is_empty() {
        writeln!(out, "no runs under {}", root.display())?;
    } else {
        let mut table = comfy_table::Table::new();
        table.load_style(comfy_table::presets::NOTHING);
        table.set_header(["run", "state", "epic", "last activity"]);
        for run in &found {
            table.add_row([
                run.name.clone(),
                run.state.to_string(),
                run.epic.clone().unwrap_or_else(|| "n/a".into()),
                run.last_activity.clone().unwrap_or_else(|| "n/a".into()),
            ]);
        }
        for line in table.to_string().lines() {
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    out.finish()?;
    Ok(0)
}

/// The run folders under `root`, by name (a missing root has none).
fn list(root: &Path) -> Vec<Run> {
    let mut found: Vec<Run> = std::fs::read_dir(root)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| {
                    let path: PathBuf = entry.path();
                    let log = path.join(decision_log::DECISION_LOG_FILE);
                    if !path.is_dir() || !log.is_file() {
                        return None;
                    }
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let last_activity = std::fs::metadata(&log)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| jiff::Timestamp::try_from(t).ok())
                        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
                    Some(Run {
                        epic: runs::epic_of_folder(&name).map(str::to_string),
                        state: if path.join(runs::RUN_REPORT_FILE).is_file() {
                            "terminal"
                        } else {
                            "live"
                        },
                        last_activity,
                        path: path.to_string_lossy().into_owned(),
                        name,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}
