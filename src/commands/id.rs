//! `git ucg id mint`: print a stable decision id.

use crate::cli::IdMintArgs;
use crate::context::Context;
use crate::error::Result;
use ucg_ultracode::ids;

pub(crate) fn run_mint(_ctx: &Context, args: &IdMintArgs) -> Result<u8> {
    let id = ids::mint(&args.kind, &args.source, &args.decision_needed);
    crate::output::print(format!("{id}\n"))?;
    Ok(0)
}
