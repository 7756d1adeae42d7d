//! `git ucg id mint`: print a stable decision id.

use crate::cli::IdMintArgs;
use crate::context::Context;
use crate::error::Result;
use std::io::Write;
use ucg_ultracode::ids;

pub(crate) fn run_mint(_ctx: &Context, args: &IdMintArgs) -> Result<u8> {
    let id = ids::mint(&args.kind, &args.source, &args.decision_needed);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{id}")?;
    stdout.flush()?;
    Ok(0)
}
