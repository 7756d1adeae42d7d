//! One module per subcommand, each `pub fn run(ctx, args) -> Result<u8>` (the exit code).

pub mod baseline;
pub mod budget;
pub mod complete;
pub mod config;
pub mod demo;
pub mod diff;
pub mod epic;
pub mod gate;
pub mod generate;
pub mod goal;
pub mod help;
pub mod hooks;
pub mod id;
pub mod lesson;
pub mod merge_file;
pub mod notify;
pub mod pending;
pub mod reds;
pub mod resolve;
pub mod resume;
pub mod runs;
pub mod sdlc;
pub mod status;

use crate::cli::{BudgetCommand, Command, Deferred, HooksCommand, IdCommand, RedsCommand};
use crate::context::Context;
use crate::error::Result;

pub(crate) fn run(ctx: &Context, command: &Command) -> Result<u8> {
    match command {
        Command::Config(args) => config::run(ctx, args),
        Command::Status(args) => status::run(ctx, args),
        Command::Runs(args) => runs::run(ctx, args),
        Command::Pending(args) => pending::run(ctx, args),
        Command::Resolve(args) => resolve::run(ctx, args),
        Command::Resume(args) => resume::run(ctx, args),
        Command::Gate(args) => gate::run(ctx, args),
        Command::Notify(args) => notify::run(ctx, args),
        Command::Hooks(Deferred(HooksCommand::Install(args))) => hooks::run_install(ctx, args),
        Command::Hooks(Deferred(HooksCommand::Uninstall(args))) => hooks::run_uninstall(ctx, args),
        Command::Hooks(Deferred(HooksCommand::Status(args))) => hooks::run_status(ctx, args),
        Command::Hooks(Deferred(HooksCommand::Run(args))) => hooks::run_hook(ctx, args),
        Command::Baseline(command) => baseline::run(ctx, command),
        Command::Goal(args) => goal::run(ctx, args),
        Command::Sdlc(command) => sdlc::run(ctx, command),
        Command::Lesson(args) => lesson::run(ctx, args),
        Command::Budget(Deferred(BudgetCommand::Tick)) => Ok(budget::run_tick()),
        Command::Budget(Deferred(BudgetCommand::Show(args))) => budget::run_show(ctx, args),
        Command::Budget(Deferred(BudgetCommand::Reset(args))) => budget::run_reset(ctx, args),
        Command::Epic(args) => epic::run(ctx, args),
        Command::Diff(args) => diff::run(ctx, args),
        Command::Id(Deferred(IdCommand::Mint(args))) => id::run_mint(ctx, args),
        Command::Reds(Deferred(RedsCommand::Apply(args))) => reds::run_apply(ctx, args),
        Command::MergeFile(args) => merge_file::run(ctx, args),
        Command::Demo(args) => demo::run(ctx, args),
        Command::Generate(args) => generate::run(ctx, args),
        Command::InstallDocs(args) => generate::install_docs(args),
        Command::Help(args) => help::run(ctx, args),
        Command::Complete(args) => Ok(complete::run(ctx, args)),
    }
}
