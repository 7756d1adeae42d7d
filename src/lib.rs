//! git-ucg: a git subcommand for operating autonomous coding-agent runs.
//!
//! Dependencies point one way: `commands` → (`context`, `output`) → (`ucg`, `config`) → `store`.
//! Format modules (`ucg`, `pyjson`) are pure functions over bytes.

pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod error;
pub mod output;
pub mod pyjson;
pub mod store;
pub mod ucg;

use clap::Parser;
use std::io::Write;

/// Parses the arguments, runs the command, reports any error, and returns the exit code.
pub fn run(args: impl IntoIterator<Item = std::ffi::OsString>) -> u8 {
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            // Help and version go to stdout; a closed stdout is not an error.
            let _ = e.print();
            return code;
        }
    };
    let outcome = context::Context::new(&cli).and_then(|ctx| commands::run(&ctx, &cli.command));
    match outcome {
        Ok(code) => code,
        Err(error) => {
            let _ = std::io::stderr().write_all(error.render().as_bytes());
            error.exit_code()
        }
    }
}
