//! `git ucg gate`: the hook decision as a command, for CI and manual checks. Exit 1 with the
//! blockers when blocked, 0 otherwise.

use crate::cli::GateArgs;
use crate::context::Context;
use crate::error::Result;
use crate::store::ArtifactSource;
use crate::ucg::gate::{self, Decision};
use crate::ucg::pending::{self, PendingInputs};
use std::path::{Path, PathBuf};

/// Where the decision reads from.
pub struct Located {
    pub project_root: PathBuf,
    pub impl_dir: PathBuf,
    pub ledger: PathBuf,
}

impl Located {
    pub fn find(ctx: &Context, impl_flag: Option<&Path>) -> Result<Located> {
        let project_root = ctx.project_root()?;
        let impl_dir = std::path::absolute(ctx.impl_artifacts(impl_flag)?)?;
        let ledger = std::path::absolute(ctx.deferred_work(None, impl_flag, &impl_dir))?;
        Ok(Located {
            project_root,
            impl_dir,
            ledger,
        })
    }

    /// The decision on the artifacts `source` holds.
    pub fn decide(&self, ctx: &Context, source: &ArtifactSource) -> Decision {
        let found = pending::enumerate(
            &PendingInputs {
                project_root: &self.project_root,
                impl_dir: &self.impl_dir,
                ledger: &self.ledger,
            },
            source,
        );
        gate::decide(found, &gated(ctx))
    }
}

/// `ucg.gate.sources` from git's configuration.
fn gated(ctx: &Context) -> Vec<crate::ucg::pending::Source> {
    let configured = ctx.repo().ok().and_then(|repo| {
        repo.config_snapshot()
            .string("ucg.gate.sources")
            .map(|s| s.to_string())
    });
    let (gated, warnings) = gate::sources(configured.as_deref());
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
    gated
}

pub fn run(ctx: &Context, args: &GateArgs) -> Result<u8> {
    let located = Located::find(ctx, args.impl_artifacts.as_deref())?;
    let source = &ctx.artifact_source(args.rev.as_deref())?;
    let decision = located.decide(ctx, source);
    let code = u8::from(decision.blocked());
    if args.json {
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
        eprint!("{}", gate::refusal(&decision, None, &source.describe()));
    } else {
        println!("gate open: nothing pending ({})", source.describe());
    }
    Ok(code)
}
