//! `git ucg runs`: the runs index — every run folder under the runs root, live, stopped or
//! terminal, the epic its name gives, and when it last showed activity.

use crate::cli::RunsArgs;
use crate::context::Context;
use crate::error::Result;
use std::io::Write;
use std::path::{Path, PathBuf};
use ucg_ultracode::{decision_log, heartbeat::Heartbeat, runs};

/// One run folder.
#[derive(Debug, serde::Serialize)]
struct Run {
    name: String,
    state: &'static str,
    epic: Option<String>,
    /// When the run last showed activity, UTC ISO-8601: for the run the heartbeat names, the
    /// heartbeat's `updated` (what the agent writes as it works); else the decision log's
    /// modification time.
    last_activity: Option<String>,
    /// Seconds from `last_activity` to now.
    #[serde(skip)]
    idle_secs: Option<i64>,
    path: String,
}

pub(crate) fn run(ctx: &Context, args: &RunsArgs) -> Result<u8> {
    let root = match &args.runs_root.dir {
        Some(dir) => dir.clone(),
        None => ctx.project_root()?.join(runs::RUNS_ROOT),
    };
    let heartbeat = ctx
        .impl_artifacts(None)
        .map(|dir| ucg_ultracode::heartbeat::read(&ucg_git::ArtifactSource::WorkTree, &dir))
        .unwrap_or_default();
    let found = list(&root, &heartbeat, jiff::Timestamp::now());
    if args.json.on {
        let doc = serde_json::json!({
            "schema": "git-ucg.runs/1",
            "runs_root": root.to_string_lossy(),
            "runs": found,
        });
        return crate::output::print_json(&doc);
    }
    let mut out = ctx.paged_output().prose();
    if found.is_empty() {
        writeln!(out, "no runs under {}", root.display())?;
    } else {
        let mut table = crate::render::table(&["run", "state", "epic", "last activity"]);
        for run in &found {
            table.add_row([
                run.name.clone(),
                run.state.to_string(),
                run.epic.clone().unwrap_or_else(|| "n/a".into()),
                match (&run.last_activity, run.idle_secs) {
                    (Some(at), Some(idle)) => {
                        format!("{at} ({})", crate::render::status_human::age(idle))
                    }
                    (Some(at), None) => at.clone(),
                    (None, _) => "n/a".into(),
                },
            ]);
        }
        write!(out, "{}", crate::render::table_lines(&table))?;
    }
    out.finish()?;
    Ok(0)
}

/// The run folders under `root`, by name (a missing root has none).
/// The run folders under `root`, by name, each `terminal`, `live` or `stopped`
/// ([`runs::folder_state`]).
fn list(root: &Path, heartbeat: &Heartbeat, now: jiff::Timestamp) -> Vec<Run> {
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
                    let logged = std::fs::metadata(&log)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| jiff::Timestamp::try_from(t).ok());
                    Some(Run {
                        epic: runs::epic_of_folder(&name).map(str::to_string),
                        state: runs::folder_state(path.join(runs::RUN_REPORT_FILE).is_file(), None),
                        last_activity: logged.map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
                        idle_secs: logged.map(|t| now.as_second() - t.as_second()),
                        path: path.to_string_lossy().into_owned(),
                        name,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    // The heartbeat's run: the newest folder of its epic.
    let beat = heartbeat
        .updated
        .as_deref()
        .and_then(|u| u.parse::<jiff::Timestamp>().ok());
    if let Some(run) = found
        .iter_mut()
        .rev()
        .find(|r| r.epic.is_some() && r.epic == heartbeat.epic)
    {
        if let Some(beat) = beat {
            run.last_activity = Some(beat.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
            run.idle_secs = Some(now.as_second() - beat.as_second());
        }
        let terminal = run.state == "terminal";
        run.state = runs::folder_state(terminal, beat.and(run.idle_secs));
    }
    found
}
