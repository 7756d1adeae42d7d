//! git-ucg: a git subcommand for operating autonomous coding-agent runs.
//!
//! Dependencies point one way (docs/ARCHITECTURE.md; `tests/architecture.rs` enforces it):
//! `main` → `commands` (with `cli`, `context`, `output`, `render`) → the domain (`ucg`, `goal`,
//! `sdlc`, `lesson`) → `git`, `store`, `pyjson`, `js`, `config`. No command calls another; only `git`
//! touches gitoxide or the git binary; only `store` writes files.
//!
//! The four systems, one module each:
//! - `ucg` — UltraCode Goal: a run's artifacts, its pending decisions, the gate, resolve.
//! - `goal` — the ultragoal state machine (`git ucg goal`), a different system despite the name.
//! - `sdlc` — agentic-sdlc runs (`git ucg sdlc`).
//! - `lesson` — DG-Anvil's lesson ledger (`git ucg lesson`).

pub mod cli;
mod commands;
pub mod config_keys;
mod context;
mod error;
mod output;
mod range_diff;
mod render;
mod watch;

use std::ffi::OsString;
use std::io::Write;

/// The stack of the thread commands run on: the JSON reader's.
use ucg_store::pyjson::STACK_SIZE;

/// Parses the arguments, runs the command, reports any error, and returns the exit code.
pub fn run(args: impl IntoIterator<Item = OsString>) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    if cli::is_prompt(&args) {
        // The hottest path runs here, without starting the command thread (a tenth of a warm
        // prompt): serving the cache reads a line file and stamps a dozen files, recursing
        // nowhere, and a computation runs on a thread of its own with the command stack.
        return std::panic::catch_unwind(commands::status::print_prompt).unwrap_or(2);
    }
    if hook_passes_at_once(&args) {
        return 0;
    }
    let worker = std::thread::Builder::new()
        .name("git-ucg".into())
        .stack_size(STACK_SIZE)
        .spawn(move || run_here(args));
    match worker.map(|handle| handle.join()) {
        Ok(Ok(code)) => code,
        // A panic has already printed its message; it is a bug, reported as a failure.
        Ok(Err(_)) => 2,
        Err(_) => run_here_fallback(),
    }
}

/// The next hottest path: a hook started by git that passes without a decision — a commit hook
/// whose last pass still holds (every file it read unchanged), prepare-commit-msg for a commit
/// already judged —, answered here as the prompt is, without the command thread. A panic is a
/// "no": the full hook decides.
fn hook_passes_at_once(args: &[OsString]) -> bool {
    let Some(cli::Cli {
        command: cli::Command::Hooks(cli::Deferred(cli::HooksCommand::Run(run))),
        ..
    }) = as_hook(args)
    else {
        return false;
    };
    let (Some(hook), Some(path)) = (run.hook, run.invoked_as.as_deref()) else {
        return false;
    };
    std::panic::catch_unwind(|| commands::hooks::passes_at_once(hook, path)).unwrap_or(false)
}

/// When no thread can be started (a process limit), say so rather than risk the small main stack.
fn run_here_fallback() -> u8 {
    let _ = std::io::stderr().write_all(b"error: cannot start a thread to run the command\n");
    2
}

fn run_here(args: Vec<OsString>) -> u8 {
    if let Some(text) = cli::version_only(&args) {
        // A closed stdout is not an error.
        let _ = std::io::stdout().write_all(text.as_bytes());
        return 0;
    }
    if let Some(cli) = as_hook(&args).or_else(|| cli::hot_path(&args)) {
        return execute(&cli, || {
            parse(args.clone()).ok().map(|(_, matches)| matches)
        });
    }
    let parsed = parse(args.clone()).or_else(|e| match goal_flags_first(&args, &e) {
        Some(retried) => parse(retried).map_err(|_| e),
        None => Err(e),
    });
    match parsed {
        Ok((cli, matches)) => execute(&cli, || Some(matches)),
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            // Help and version go to stdout; a closed stdout is not an error.
            let _ = e.print();
            code
        }
    }
}

/// Runs the parsed command and reports its error; `matches` (clap's parse, made only when an
/// error wants a usage line) give the usage line.
fn execute(cli: &cli::Cli, matches: impl FnOnce() -> Option<clap::ArgMatches>) -> u8 {
    let outcome = context::Context::new(cli).and_then(|ctx| commands::run(&ctx, &cli.command));
    match outcome {
        Ok(code) => code,
        Err(error) => {
            let mut text = match &error {
                // A reference-style JSON line is read by programs: it stays one line.
                error::Error::JsonLine(_) => error.render(),
                _ => render::fit::reflow_error(
                    &error.render(),
                    output::error_columns().saturating_sub(remote_prefix(cli)),
                ),
            };
            if let Some(matches) = error.wants_usage().then(matches).flatten() {
                text.push_str(&usage_line(&matches));
            }
            let _ = std::io::stderr().write_all(text.as_bytes());
            error.exit_code()
        }
    }
}

/// The columns git's `remote: ` takes before each line the server's hook says.
fn remote_prefix(cli: &cli::Cli) -> usize {
    match &cli.command {
        cli::Command::Hooks(cli::Deferred(cli::HooksCommand::Run(run)))
            if run.hook.is_some_and(|h| h.is_server_side()) =>
        {
            output::REMOTE_PREFIX
        }
        _ => 0,
    }
}

/// Started by the kernel as a hook's interpreter (`hooks/direct`: `#!<this binary> __hook`), with
/// `__hook <hook path> <git's arguments>`: that is `git ucg hooks run <hook> <git's arguments>`,
/// without the command line parser — git's arguments are the hook's, whatever they look like.
fn as_hook(args: &[OsString]) -> Option<cli::Cli> {
    if args.get(1)? != ucg_git::hooks::DIRECT_HOOK_ARG {
        return None;
    }
    let path = std::path::Path::new(args.get(2)?);
    let invoked = path.file_name()?.to_str()?;
    let hook = cli::HookName::all()
        .iter()
        .copied()
        .find(|hook| hook.file_name() == invoked)?;
    Some(cli::Cli {
        color: cli::ColorWhen::Auto,
        no_pager: false,
        chdir: Vec::new(),
        command: cli::Command::Hooks(cli::Deferred(cli::HooksCommand::Run(cli::HooksRunArgs {
            hook: Some(hook),
            from_env: false,
            args: args[3..].to_vec(),
            invoked_as: Some(path.to_path_buf()),
        }))),
    })
}

/// `usage: git ucg <the subcommand in use> …`, clap's usage of the invoked subcommand.
fn usage_line(matches: &clap::ArgMatches) -> String {
    let mut invoked = cli::command();
    let mut level = matches;
    while let Some((name, sub)) = level.subcommand() {
        match invoked.find_subcommand(name) {
            Some(found) => invoked = found.clone(),
            None => break,
        }
        level = sub;
    }
    let usage = invoked.render_usage().to_string();
    let usage = usage.strip_prefix("Usage: ").unwrap_or(&usage);
    format!("usage: {}\n", usage.trim_end())
}

/// `goal`'s state CLI takes flags before its subcommand (`goal --phase planning set`), which clap
/// refuses as unknown arguments: then the arguments again, with the marker after `goal` that
/// hands them to `goal` whole.
fn goal_flags_first(args: &[OsString], error: &clap::Error) -> Option<Vec<OsString>> {
    if error.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let at = args.iter().skip(1).position(|a| a == "goal")? + 1;
    let next = args.get(at + 1)?.to_str()?;
    if !next.starts_with("--") {
        return None;
    }
    let mut retried = args.to_vec();
    retried.insert(at + 1, cli::GOAL_FLAGS_FIRST.into());
    Some(retried)
}

fn parse(args: Vec<OsString>) -> Result<(cli::Cli, clap::ArgMatches), clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    cli::Cli::command()
        // Help fits the terminal as every other output does (clap's own default is 100).
        .term_width(output::columns())
        .try_get_matches_from(args)
        .and_then(|matches| {
            let mut cli = cli::Cli::from_arg_matches(&matches)?;
            // `--close ID --answer TEXT` pairs by position, which only the matches know.
            match (&mut cli.command, matches.subcommand()) {
                (cli::Command::Resolve(resolve), Some(("resolve", sub))) => resolve.pair(sub),
                // The state CLI's argv, named as clap matched it.
                (cli::Command::Goal(goal), Some(("goal", sub))) => goal.keep_argv(sub),
                _ => {}
            }
            Ok((cli, matches))
        })
}
