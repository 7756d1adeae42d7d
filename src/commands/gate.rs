//! `git ucg gate`: the hook decision as a command, for CI and manual checks. Exit 1 with the
//! blockers when blocked, 0 otherwise.

use crate::cli::GateArgs;
use crate::context::Context;
use crate::error::Result;
use crate::render::visible;
use crate::ucg::gate;

pub fn run(ctx: &Context, args: &GateArgs) -> Result<u8> {
    let located = ctx.gate_inputs(args.impl_artifacts.dir.as_deref())?;
    let source = &ctx.artifact_source(args.rev.commit.as_deref())?;
    if matches!(source, crate::git::ArtifactSource::WorkTree) && !located.impl_dir.is_dir() {
        // The gate opens on a directory that is not there: say so, as a misconfiguration would.
        eprintln!(
            "warning: the artifact directory {} does not exist: nothing to gate (check workflow.implementation_artifacts, or --impl-artifacts)",
            located.impl_dir.display()
        );
    }
    let decision = located
        .decide(source, &ctx.gated_sources())
        .with_deciders(&ctx.decider_rules());
    let code = u8::from(decision.blocked());
    if args.json.on {
        crate::output::print_json(&serde_json::json!({
            "schema": "git-ucg.gate/1",
            "blocked": decision.blocked(),
            "read_from": source.describe(),
            "blocking": decision.blocking,
            "blockers": decision.blockers,
        }))?;
        return Ok(code);
    }
    if decision.blocked() {
        eprint!(
            "{}",
            visible::escape_controls(&gate::refusal(&decision, None, &source.describe()), &[])
        );
    } else {
        println!("gate open: nothing pending ({})", source.describe());
    }
    Ok(code)
}
