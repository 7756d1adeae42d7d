//! `git ucg help [COMMAND…]`: a command's full help, as `git ucg COMMAND --help` prints it (git's
//! own `git help ucg` opens the man page).

use crate::cli::HelpArgs;
use crate::context::Context;
use crate::error::{Error, Result};

pub(crate) fn run(ctx: &Context, args: &HelpArgs) -> Result<u8> {
    let mut shown = crate::cli::command_for_columns(crate::output::columns());
    for name in &args.command {
        let Some(sub) = shown.find_subcommand(name).filter(|c| !c.is_hide_set()) else {
            let known: Vec<String> = shown
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name().to_string())
                .collect();
            return Err(
                Error::new(format!("no such command: {}", args.command.join(" ")))
                    .hint(format!("the commands here: {}", known.join(", "))),
            );
        };
        shown = sub.clone();
    }
    let text = shown.render_long_help().to_string();
    ctx.page(text)
}
