//! `git ucg gate`: the hook decision as a command, for CI and manual checks. Exit 1 with the
//! blockers when blocked, 0 otherwise, in every format.

use crate::cli::{GateArgs, GateFormat};
use crate::context::Context;
use crate::error::Result;
use crate::render::{ci, visible};

pub(crate) fn run(ctx: &Context, args: &GateArgs) -> Result<u8> {
    judge(ctx, args).inspect_err(|error| {
        // A CI report step looks for the document whatever happened: it says why there is no
        // judgement (the exit code stays 2).
        let why = error.render();
        let why = why.trim();
        let why = why.strip_prefix("error: ").unwrap_or(why);
        let document = match (args.json.on, args.format) {
            (false, GateFormat::Junit) => ci::junit_cannot_judge(why),
            (false, GateFormat::Github) => ci::github_cannot_judge(why),
            _ => return,
        };
        let _ = crate::output::print(&document);
    })
}

fn judge(ctx: &Context, args: &GateArgs) -> Result<u8> {
    let impl_flag = args.impl_artifacts.dir.as_deref();
    let (located, source) = ctx.gate_source(args.rev.commit.as_deref(), impl_flag, "gate")?;
    let source = &source;
    let nothing_there = std::fs::symlink_metadata(&located.impl_dir).is_err();
    if matches!(source, ucg_git::ArtifactSource::WorkTree) && nothing_there {
        // The gate opens on a directory that is not there: say so, as a misconfiguration would.
        eprintln!(
            "warning: the artifact directory {} does not exist: nothing to gate (check workflow.implementation_artifacts, or --impl-artifacts)",
            located.impl_dir.display()
        );
    }
    let decision = located
        .decide(source, &ctx.gate_policy())
        .with_deciders(&ctx.decider_rules());
    let code = u8::from(decision.blocked());
    // The bypass records since the run stopped: this repository's, for the work tree's run.
    let bypasses = match args.rev.commit {
        Some(_) => Vec::new(),
        None => {
            let beat = ucg_ultracode::heartbeat::read(source, &located.impl_dir);
            ctx.bypasses_since(beat.updated.as_deref())
        }
    };
    let format = match args.json.on {
        true => GateFormat::Json,
        false => args.format,
    };
    let printed = match format {
        GateFormat::Json => crate::output::print_json(&GateDocument {
            schema: "git-ucg.gate/1",
            blocked: decision.blocked(),
            read_from: source.describe(),
            blocking: &decision.blocking,
            blockers: &decision.blockers,
            bypasses: &bypasses,
        })
        .map(drop),
        GateFormat::Github => print(&ci::github(&decision)),
        GateFormat::Junit => print(&ci::junit(&decision, &source.describe())),
        GateFormat::Text if decision.blocked() => {
            let refusal =
                crate::render::refusal::refusal(&decision, None, &source.describe(), args.full);
            crate::output::say(&visible::escape_controls(&refusal, &[]));
            crate::output::say(&crate::render::bypass::describe(&bypasses));
            Ok(())
        }
        GateFormat::Text => Ok(crate::output::print_prose(&format!(
            "gate open: nothing pending ({})\n{}",
            source.describe(),
            crate::render::bypass::describe(&bypasses)
        ))?),
    };
    match printed {
        // A reader that stopped early (a closed pipe exits 0 elsewhere) never opens the gate.
        Err(_) if decision.blocked() => Ok(code),
        Err(error) => Err(error),
        Ok(()) => Ok(code),
    }
}

/// The `--json` document, serialized straight from the decision: a run of 100,000 items is not
/// first built as a tree of JSON values (that doubled the gate's time).
#[derive(serde::Serialize)]
struct GateDocument<'a> {
    schema: &'static str,
    blocked: bool,
    read_from: String,
    blocking: &'a [ucg_ultracode::pending::PendingItem],
    blockers: &'a [ucg_ultracode::pending::Blocker],
    /// Commits that went past the gate since the run stopped.
    bypasses: &'a [ucg_ultracode::bypass::Bypass],
}

fn print(text: &str) -> Result<()> {
    Ok(crate::output::print(text)?)
}
