//! `git ucg goal`: the ultragoal state machine, speaking its TypeScript state CLI's language —
//! exit 0, or 1 with `ultragoal-state: Error: …` on stderr. The session id is checked before any
//! subcommand runs, as there.

use crate::cli::{GoalArgs, GoalCommand};
use crate::context::Context;
use crate::error::Result;
use crate::goal::{self, dir};
use std::io::Write;

pub fn run(_ctx: &Context, args: &GoalArgs) -> Result<u8> {
    let sid = match dir::session_id(args.session.as_deref()) {
        Ok(sid) => sid,
        Err(message) => return Ok(refuse(&message)),
    };
    let cwd = std::env::current_dir()?;
    let (omt_dir, warning) = dir::omt_dir(args.omt_dir.as_deref(), &cwd);
    if let Some(warning) = warning {
        eprintln!("warning: {warning}");
    }
    let bytes = std::fs::read(dir::state_file(&omt_dir, &sid)).ok();
    let mut stdout = std::io::stdout().lock();
    match args.command {
        GoalCommand::Status => writeln!(stdout, "{}", goal::status_token(bytes.as_deref()))?,
        GoalCommand::Get => match goal::get_view(bytes.as_deref()) {
            Some(view) => {
                let text = serde_json::to_string_pretty(&view)
                    .map_err(|e| crate::error::Error::new(e.to_string()))?;
                writeln!(stdout, "{text}")?;
            }
            None => writeln!(stdout, "null")?,
        },
    }
    Ok(0)
}

/// A refusal as the TypeScript CLI prints it: exit 1.
fn refuse(message: &str) -> u8 {
    eprintln!("ultragoal-state: Error: {message}");
    1
}
